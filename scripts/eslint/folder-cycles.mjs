// ESLint rule `bastion/no-folder-cycles`: inside one app, the feature folders under src/
// (tokens/, admission/, ...) must not import each other in a cycle, even when no single file does.
// import-x/no-cycle sees cycles between files; this one sees them between folders.
// ESLint rule `bastion/no-lib-cycles`: the libs (libs/<lib>, imported as @bastion/<lib>) must not
// import each other in a cycle either. import-x/no-cycle does not follow them, as they resolve
// through node_modules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const graphs = new Map();

/** The apps/<app>/src/ directory a file lives under, and its folder there (undefined for files directly in src/). */
function locate(file) {
  const m = /^(.*[\\/]apps[\\/][^\\/]+[\\/]src)[\\/](.+)$/.exec(file);
  if (!m) return undefined;
  const parts = m[2].split(/[\\/]/);
  return { src: m[1], folder: parts.length > 1 ? parts[0] : undefined };
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'node_modules') out.push(...sourceFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) out.push(path);
  }
  return out;
}

function folderOf(src, path) {
  const parts = relative(src, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Folder -> the folders its files import, over every non-spec file of that src/. */
function graphOf(src) {
  let graph = graphs.get(src);
  if (graph) return graph;
  graph = new Map();
  for (const file of sourceFiles(src)) {
    const from = folderOf(src, file);
    if (!from) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = folderOf(src, resolve(dirname(file), m[1] ?? m[2]));
      if (to && to !== from) graph.set(from, new Set([...(graph.get(from) ?? []), to]));
    }
  }
  graphs.set(src, graph);
  return graph;
}

/** A path of folders from `from` to `to`, or undefined. */
function pathBetween(graph, from, to) {
  const seen = new Set([from]);
  const queue = [[from]];
  while (queue.length) {
    const path = queue.shift();
    for (const next of graph.get(path[path.length - 1]) ?? []) {
      if (next === to) return [...path, next];
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...path, next]);
      }
    }
  }
  return undefined;
}

export const noFolderCycles = {
  meta: {
    type: 'problem',
    docs: { description: 'Feature folders inside one app must not import each other in a cycle' },
    schema: [],
  },
  create(context) {
    const here = locate(context.filename);
    if (!here?.folder || context.filename.endsWith('.spec.ts')) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = folderOf(here.src, resolve(dirname(context.filename), spec));
      if (!target || target === here.folder) return;
      const back = pathBetween(graphOf(here.src), target, here.folder);
      if (back) {
        context.report({ node, message: `folder cycle: ${[here.folder, ...back].map((f) => `${f}/`).join(' -> ')}` });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

const BASTION_IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]@bastion\/([a-z-]+)['"]|import\(\s*['"]@bastion\/([a-z-]+)['"]\s*\)/g;
const libGraphs = new Map();

/** Lib -> the libs its source files (specs and test/ apart) import, for the libs/ directory `libs`. */
function libGraphOf(libs) {
  let graph = libGraphs.get(libs);
  if (graph) return graph;
  graph = new Map();
  for (const entry of readdirSync(libs, { withFileTypes: true })) {
    const src = join(libs, entry.name, 'src');
    if (!entry.isDirectory() || !existsSync(src)) continue;
    const to = new Set();
    for (const file of sourceFiles(src)) {
      for (const m of readFileSync(file, 'utf8').matchAll(BASTION_IMPORT)) to.add(m[1] ?? m[2]);
    }
    to.delete(entry.name);
    graph.set(entry.name, to);
  }
  libGraphs.set(libs, graph);
  return graph;
}

export const noLibCycles = {
  meta: {
    type: 'problem',
    docs: { description: 'The libs must not import each other in a cycle' },
    schema: [],
  },
  create(context) {
    const m = /^(.*[\\/]libs)[\\/]([^\\/]+)[\\/]src[\\/]/.exec(context.filename);
    if (!m || context.filename.endsWith('.spec.ts')) return {};
    const [, libs, lib] = m;
    const check = (node) => {
      const target = /^@bastion\/([a-z-]+)$/.exec(node.source?.value ?? '')?.[1];
      if (!target || target === lib) return;
      const back = pathBetween(libGraphOf(libs), target, lib);
      if (back) {
        context.report({ node, message: `lib cycle: ${[lib, ...back].map((l) => `@bastion/${l}`).join(' -> ')}` });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'no-folder-cycles': noFolderCycles, 'no-lib-cycles': noLibCycles } };
