// The part of a Bash syntax tree that standing rules read. The tree comes from tree-sitter-bash (a maintained Bash
// grammar) run by web-tree-sitter: src/main/hub/features/rules/shell-parser.ts loads it and hands the pure code here
// a ShellParse. Its nodes satisfy this interface as they are; nothing here depends on the library itself.

export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  /** The node is or holds a syntax error or a missing token. */
  readonly hasError: boolean;
  readonly children: readonly (SyntaxNode | null)[];
}

/**
 * Parses a command into its syntax tree and calls `use` with the root while the tree lives (the parser frees it after),
 * or calls it with undefined when the parser is not loaded or failed. Never throws.
 */
export type ShellParse = <T>(command: string, use: (root: SyntaxNode | undefined) => T) => T;

/** The node's children, without the empty slots a tree may have. */
export function kids(n: SyntaxNode): SyntaxNode[] {
  return n.children.filter((c): c is SyntaxNode => c !== null);
}

/** The named children (what the grammar calls the parts: words, commands, redirects). */
export function namedKids(n: SyntaxNode): SyntaxNode[] {
  return kids(n).filter((c) => c.isNamed);
}
