// The tool catalog agents see: names, order, descriptions, argument schemas and result schemas (shapes in tool-results.ts); the tools themselves are
// declared by area in src/shared/api/tools/*.ts.
// Source of truth: the agent tool contract, kept as test/fixtures/contract.json (test/unit/catalog.test.ts checks it).
// Pure TypeScript: no Node, no DOM.
export {
  type ToolSpec,
  type ToolOutput,
  INTENTS,
  REQUEST_KINDS,
  TASK_STATES,
  SENDER_TYPES,
  PROGRESS_KINDS,
  FILE_VARIANTS,
} from './tools/define';
export { type ToolName, type ToolSpecOf, type ToolArgs, type ToolResult, TOOLS, TOOL_BY_NAME, isToolName } from './tools/tool-list';
export { catalogJson, toolInputJsonSchema, toolOutputJsonSchema, schemaFingerprint, toolSchemaVersion } from './tools/json-schema';
