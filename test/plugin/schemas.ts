/**
 * The documented shapes of the plugin files, as small JSON Schemas for test/helpers/json-schema.ts
 * (required fields and types only). Sources: Claude Code plugins reference ("Plugin manifest
 * schema", "Hooks", "MCP servers"; code.claude.com/docs/en/plugins-reference), hooks reference
 * ("Hook handler fields"; /docs/en/hooks) and marketplace reference ("Top-level fields",
 * "Plugin entries", "Plugin sources"; /docs/en/plugins/marketplace-reference).
 */
import type { Schema } from '../helpers/json-schema.js';

const str = { type: 'string' };
const stringOrArrayOrObject = { type: ['string', 'array', 'object'] };

/** Every event the hooks reference lists (a hook under any other key never fires). */
export const DOCUMENTED_EVENTS = [
  'SessionStart', 'Setup', 'UserPromptSubmit', 'UserPromptExpansion', 'PreToolUse', 'PermissionRequest', 'PermissionDenied',
  'PostToolUse', 'PostToolUseFailure', 'PostToolBatch', 'Notification', 'SubagentStart', 'SubagentStop', 'TaskCreated',
  'TaskCompleted', 'Stop', 'StopFailure', 'TeammateIdle', 'InstructionsLoaded', 'ConfigChange', 'CwdChanged', 'FileChanged',
  'WorktreeCreate', 'WorktreeRemove', 'PreCompact', 'PostCompact', 'Elicitation', 'ElicitationResult', 'SessionEnd',
] as const;

const mcpServer: Schema = {
  type: 'object',
  required: ['command'],
  properties: { command: str, args: { type: 'array', items: str }, env: { type: 'object', additionalProperties: str }, cwd: str },
  additionalProperties: false,
};

/** .claude-plugin/plugin.json: `name` is the only required field (kebab-case, no spaces). */
export const pluginManifestSchema: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    $schema: str,
    name: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+(?:[-+][0-9A-Za-z.-]+)?$' },
    description: str,
    author: { type: 'object', required: ['name'], properties: { name: str, email: str, url: str }, additionalProperties: false },
    homepage: str,
    repository: str,
    license: str,
    keywords: { type: 'array', items: str },
    icon: str,
    network: { type: 'object', properties: { hosts: { type: 'array', items: str } }, additionalProperties: false },
    skills: { type: ['string', 'array'] },
    commands: { type: ['string', 'array'] },
    agents: { type: ['string', 'array'] },
    hooks: stringOrArrayOrObject,
    mcpServers: { anyOf: [{ type: ['string', 'array'] }, { type: 'object', additionalProperties: mcpServer }] },
    outputStyles: { type: ['string', 'array'] },
    lspServers: stringOrArrayOrObject,
    experimental: { type: 'object' },
    userConfig: { type: 'object' },
    channels: { type: 'array' },
    dependencies: { type: 'array' },
  },
  additionalProperties: false,
};

const commandHandler: Schema = {
  type: 'object',
  required: ['type', 'command'],
  properties: {
    type: { const: 'command' },
    command: { type: 'string', minLength: 1 },
    args: { type: 'array', items: str },
    timeout: { type: 'number', exclusiveMinimum: 0 },
    if: str,
    statusMessage: str,
    async: { type: 'boolean' },
    shell: { enum: ['bash', 'powershell'] },
  },
  additionalProperties: false,
};

/** hooks/hooks.json: {"description"?, "hooks": {"<Event>": [{"matcher"?, "hooks": [handler]}]}}. */
export const hooksFileSchema: Schema = {
  type: 'object',
  required: ['hooks'],
  properties: {
    description: str,
    hooks: {
      type: 'object',
      additionalProperties: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['hooks'],
          properties: { matcher: str, hooks: { type: 'array', minItems: 1, items: commandHandler } },
          additionalProperties: false,
        },
      },
    },
  },
  additionalProperties: false,
};

/** .claude-plugin/marketplace.json: `name`, `owner` (with `name`) and `plugins` are required;
 *  each entry needs `name` and `source` (a relative path starts with `./`, no `..`). */
export const marketplaceSchema: Schema = {
  type: 'object',
  required: ['name', 'owner', 'plugins'],
  properties: {
    $schema: str,
    name: { type: 'string', pattern: '^[^\\s/\\\\]+$' },
    owner: { type: 'object', required: ['name'], properties: { name: str, email: str, url: str }, additionalProperties: false },
    description: str,
    version: str,
    metadata: { type: 'object' },
    plugins: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'source'],
        properties: {
          name: { type: 'string', pattern: '^\\S+$' },
          source: { anyOf: [{ type: 'string', pattern: '^(\\.|\\./(?!.*\\.\\.).*)$' }, { type: 'object', required: ['source'] }] },
          description: str,
          version: str,
          category: str,
          tags: { type: 'array', items: str },
          strict: { type: 'boolean' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};
