#!/usr/bin/env node
// Rewrites imports after libs/platform was split into @bastion/platform, @bastion/observability,
// @bastion/persistence and @bastion/messaging (run it on a branch that still imports the old
// package, after merging the split): `node scripts/codemods/split-platform.js [--check]`.
//
// - `import { a, type b } from '@bastion/platform'` becomes one import per package that now exports
//   each name (read from each package's src/index.ts with the TypeScript checker);
// - a relative import inside one of these libs whose target moved to another of them becomes an
//   import of that package, merged with the file's other imports of it;
// - `const { a, b } = require('.../libs/platform/dist/index.js')` in scripts is split the same way,
//   and `libs/platform/dist/db/index.js` becomes `libs/persistence/dist/db/index.js`;
// - each package.json that depends on @bastion/platform depends on what its files now import.
// An imported name that no package exports stops the run. `--check` lists the files it would change.
const { existsSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const root = path.join(__dirname, '..', '..');
const PACKAGES = ['platform', 'observability', 'persistence', 'messaging'];
const check = process.argv.includes('--check');

/** Name -> the package whose index exports it. */
function exportMap() {
  const entries = PACKAGES.map((p) => path.join(root, 'libs', p, 'src', 'index.ts'));
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    experimentalDecorators: true,
  });
  const checker = program.getTypeChecker();
  const owner = new Map();
  PACKAGES.forEach((pkg, i) => {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(entries[i]));
    for (const name of checker.getExportsOfModule(symbol).map((s) => s.name)) {
      if (owner.has(name))
        throw new Error(`${name} is exported by both @bastion/${owner.get(name)} and @bastion/${pkg}`);
      owner.set(name, pkg);
    }
  });
  return owner;
}

/** Moves staged in git (old -> new absolute path), for relative imports written before the move. */
function stagedMoves() {
  const moves = new Map();
  const out = execFileSync('git', ['diff', '--cached', '-M', '--name-status', 'HEAD'], { cwd: root, encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const [status, from, to] = line.split('\t');
    if (status?.startsWith('R')) moves.set(path.join(root, from), path.join(root, to));
  }
  return moves;
}

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'generated', '.git', '.data', '.stack', 'coverage'].includes(entry.name)) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(file, out);
    else if (/\.(ts|js|cjs|mjs)$/.test(entry.name)) out.push(file);
  }
  return out;
}

/** The split package a file lives in, or undefined. */
function packageOf(file) {
  const m = /^libs[\\/]([^\\/]+)[\\/]/.exec(path.relative(root, file));
  return m && PACKAGES.includes(m[1]) ? m[1] : undefined;
}

/** `a`, `type b`, `c as d` -> { name, text, type } for each specifier of an import's braces. */
function specifiers(list, allType) {
  return list
    .split(',')
    .map((s) => s.trim().replace(/\s+/g, ' '))
    .filter(Boolean)
    .map((text) => {
      const type = allType || text.startsWith('type ');
      const bare = text.replace(/^type /, '');
      return { name: bare.split(' as ')[0], bare, type };
    });
}

function renderImport(specs, from) {
  const allType = specs.every((s) => s.type);
  const list = specs.map((s) => (s.type && !allType ? `type ${s.bare}` : s.bare)).join(', ');
  return `import ${allType ? 'type ' : ''}{ ${list} } from '${from}';`;
}

const IMPORT = /^import (type )?\{([^}]*)\} from '([^']+)';$/gm;

function rewriteTs(file, text, owner, missing, moves) {
  const here = packageOf(file);
  const before = [...moves].find(([, to]) => to === file)?.[0] ?? file;
  // Imports grouped by the package they now come from; the first statement of a group keeps its place.
  const groups = new Map();
  let out = text.replace(IMPORT, (whole, type, list, from) => {
    let targets;
    if (from === '@bastion/platform') {
      targets = new Map();
      for (const s of specifiers(list, Boolean(type))) {
        const pkg = owner.get(s.name);
        if (!pkg) missing.push(`${path.relative(root, file)}: ${s.name}`);
        const to = `@bastion/${pkg ?? 'platform'}`;
        targets.set(to, [...(targets.get(to) ?? []), s]);
      }
    } else if (here && from.startsWith('.')) {
      // Where the import pointed before the move, and where that file is now.
      const old = path.resolve(path.dirname(before), from);
      const now = (moves.get(`${old}.ts`) ?? `${old}.ts`).replace(/\.ts$/, '');
      const target = packageOf(now);
      if (target === here) {
        let rel = path.relative(path.dirname(file), now).split(path.sep).join('/');
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return rel === from ? whole : whole.replace(`'${from}'`, `'${rel}'`);
      }
      if (!target) return whole;
      targets = new Map([[`@bastion/${target}`, specifiers(list, Boolean(type))]]);
    } else return whole;
    const marks = [];
    for (const [to, specs] of targets) {
      if (!groups.has(to)) {
        groups.set(to, []);
        marks.push(`\u0000${to}\u0000`);
      }
      groups.get(to).push(...specs);
    }
    // An import merged into an earlier one leaves a mark that removes its line.
    return marks.length ? marks.join('\n') : '\u0001';
  });
  for (const [to, specs] of groups) out = out.replace(`\u0000${to}\u0000`, renderImport(specs, to));
  return out.split('\u0001\n').join('');
}

const REQUIRE = /^const \{([^}]*)\} = require\('((?:\.\.?\/)+)libs\/platform\/dist\/index\.js'\);$/gm;

function rewriteJs(file, text, owner, missing) {
  return text
    .replace(REQUIRE, (whole, list, up) => {
      const byPkg = new Map();
      for (const name of list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const pkg = owner.get(name.split(':')[0].trim());
        if (!pkg) missing.push(`${path.relative(root, file)}: ${name}`);
        byPkg.set(pkg ?? 'platform', [...(byPkg.get(pkg ?? 'platform') ?? []), name]);
      }
      return [...byPkg]
        .map(([pkg, names]) => `const { ${names.join(', ')} } = require('${up}libs/${pkg}/dist/index.js');`)
        .join('\n');
    })
    .replace(/libs\/platform\/dist\/db\/index\.js/g, 'libs/persistence/dist/db/index.js');
}

/** Each package.json that depended on @bastion/platform depends on the split packages its files import. */
function rewritePackageJson(dir, files) {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const json = JSON.parse(text);
  const self = json.name;
  const used = new Set();
  for (const f of files.filter((f) => dir === root || f.startsWith(dir + path.sep))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/from '@bastion\/([a-z-]+)'|require\('@bastion\/([a-z-]+)'\)/g)) {
      const pkg = m[1] ?? m[2];
      if (PACKAGES.includes(pkg) && `@bastion/${pkg}` !== self) used.add(pkg);
    }
  }
  let changed = false;
  for (const section of ['dependencies', 'devDependencies']) {
    const deps = json[section];
    if (!deps || !('@bastion/platform' in deps)) continue;
    // The split packages take @bastion/platform's place, in name order; the other entries stay put.
    const split = PACKAGES.filter((p) => used.has(p))
      .map((p) => `@bastion/${p}`)
      .sort();
    json[section] = Object.fromEntries(
      Object.entries(deps)
        .filter(([name]) => name === '@bastion/platform' || !split.includes(name))
        .flatMap(([name, version]) =>
          name === '@bastion/platform' ? split.map((s) => [s, 'workspace:*']) : [[name, version]],
        ),
    );
    changed = true;
  }
  return changed ? [file, JSON.stringify(json, null, 2) + '\n', text] : undefined;
}

function main() {
  const owner = exportMap();
  const moves = stagedMoves();
  const files = ['apps', 'libs', 'test', 'bench', 'scripts'].flatMap((d) => sourceFiles(path.join(root, d)));
  const missing = [];
  const changes = [];
  for (const file of files) {
    if (file === __filename) continue;
    const text = readFileSync(file, 'utf8');
    const next = file.endsWith('.ts')
      ? rewriteTs(file, text, owner, missing, moves)
      : rewriteJs(file, text, owner, missing);
    if (next !== text) changes.push([file, next]);
  }
  if (missing.length) {
    console.error(`no split package exports:\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  for (const [file, next] of changes) {
    if (!check) writeFileSync(file, next);
    console.log(`${check ? 'would rewrite' : 'rewrote'} ${path.relative(root, file)}`);
  }
  // package.json files are read after the sources were rewritten, so they see the new imports.
  const dirs = [
    root,
    ...['apps', 'libs'].flatMap((d) => readdirSync(path.join(root, d)).map((n) => path.join(root, d, n))),
  ];
  for (const dir of dirs) {
    const own = dir === root ? files.filter((f) => !/^(apps|libs)[\\/]/.test(path.relative(root, f))) : files;
    const change = rewritePackageJson(dir, own);
    if (!change || change[1] === change[2]) continue;
    if (!check) writeFileSync(change[0], change[1]);
    console.log(`${check ? 'would rewrite' : 'rewrote'} ${path.relative(root, change[0])}`);
  }
}

main();
