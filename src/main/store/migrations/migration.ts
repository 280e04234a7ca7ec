// What one migration is. Each lives in its own file (NN-name.ts) and is listed, in order, in index.ts.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
