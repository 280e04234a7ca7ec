// The Bash parser standing rules decide on: tree-sitter-bash's grammar (tree-sitter-bash.wasm, shipped in its npm
// package) run by web-tree-sitter, both read from node_modules (no download; in the packaged app from the asar, which
// Electron's fs reads). Loading is asynchronous (WebAssembly, tens of milliseconds), so the hub does not wait for it to
// start: it begins right after the hub's ready line (app.ts), and what reads a command with a rule awaits
// ensureShellParser() first — a prompt filed through the hook door (promptRequestInput) and the rules.* owner actions —
// so a decision made while it loads is the one made after. Until it has loaded (or if it cannot load), parseShell hands
// undefined and every command is one Perch cannot tell: no rule with a command prefix decides it (the owner does).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { ShellParse, SyntaxNode } from '../../../../shared/shell/syntax';

interface TreeSitterParser {
  parse(input: string): { rootNode: SyntaxNode; delete(): void } | null;
  reset(): void;
}

let parser: TreeSitterParser | undefined;
let loading: Promise<void> | undefined;

/** Loads the parser once (later calls wait for the same load). */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const req = createRequire(__filename);
    const { Parser, Language } = req('web-tree-sitter') as typeof import('web-tree-sitter');
    await Parser.init({ wasmBinary: fs.readFileSync(req.resolve('web-tree-sitter/tree-sitter.wasm')) });
    const bash = await Language.load(fs.readFileSync(req.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
    const p = new Parser();
    p.setLanguage(bash);
    parser = p as unknown as TreeSitterParser;
  })();
  return loading;
}

/** Whether the parser has loaded (rules decide nothing they would allow before). */
export function shellParserLoaded(): boolean {
  return parser !== undefined;
}

let failure: string | undefined;

/**
 * Loads the parser before a rule reads a command (see the top of this file). Never rejects: a parser that fails to load
 * is said once on stderr (the line is also handed back, for the hub's log), and no rule with a command prefix decides
 * a prompt from then on: the owner does.
 */
export async function ensureShellParser(): Promise<{ failure?: string }> {
  try {
    await loadShellParser();
    return {};
  } catch (e) {
    if (failure === undefined) {
      failure = `the shell parser did not load (${(e as Error).message}): standing rules with a command prefix decide nothing, every such prompt goes to the owner`;
      process.stderr.write(`perch: ${failure}.\n`);
    }
    return { failure };
  }
}

/** Parses a command with the loaded parser (see ShellParse); the tree is freed after `use`. Never throws. */
export const parseShell: ShellParse = (command, use) => {
  if (!parser) return use(undefined);
  let tree: ReturnType<TreeSitterParser['parse']>;
  try {
    tree = parser.parse(command);
  } catch {
    parser.reset();
    return use(undefined);
  }
  if (!tree) return use(undefined);
  try {
    return use(tree.rootNode);
  } finally {
    tree.delete();
  }
};
