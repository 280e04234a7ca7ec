// The agent tool contract as data: test/fixtures/contract.json, the project's copy of the published
// contract text (tool names in order, descriptions, read-only flags, arguments with type, required
// flag and description). It was extracted once from the contract page; the tests compare the catalog
// and tools/list against it, so a change to the contract is a deliberate edit of that file.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type ContractArgType = 'string' | 'integer' | 'boolean' | 'array' | 'object' | 'any';

export interface ContractArg {
  name: string;
  type: ContractArgType;
  required: boolean;
  /** '' where the contract's table leaves the cell empty. */
  description: string;
}

export interface ContractTool {
  name: string;
  /** The contract page lost this tool's heading; its name was mapped from its description. */
  heading_lost_in_source?: true;
  description: string;
  read_only: boolean;
  /** [] for a tool the contract lists with "No arguments." */
  arguments: ContractArg[];
}

export const CONTRACT_FIXTURE = path.join(__dirname, '..', 'fixtures', 'contract.json');

/** The contract's tools in the contract's order. */
export function loadContract(): ContractTool[] {
  return JSON.parse(readFileSync(CONTRACT_FIXTURE, 'utf8')) as ContractTool[];
}
