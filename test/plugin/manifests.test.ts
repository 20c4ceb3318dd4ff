/**
 * The plugin's files against the documented schemas (test/plugin/schemas.ts), with controls
 * that the schemas reject what the docs forbid; the files equal what ops/plugin-manifest.ts
 * builds from install's own values (events, matchers, timeout, cleared environment); every
 * path the manifests name exists in the repository; names and version agree across
 * plugin.json, marketplace.json and package.json.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { validate } from '../helpers/json-schema.js';
import { repoRoot } from '../helpers/model.js';
import { DOCUMENTED_EVENTS, hooksFileSchema, marketplaceSchema, pluginManifestSchema } from './schemas.js';
import {
  MARKETPLACE_NAME, PLUGIN_NAME, PLUGIN_ROOT_VAR, pluginHooks, pluginMcpServers, pluginHookCommand, pluginSessionStartCommand,
} from '../../ops/plugin-manifest.js';
import { CLAUDE_EVENTS, EVENT_MATCHERS, HOOK_CLEARED_ENV, HOOK_TIMEOUT_SECONDS } from '../../ops/hook-install.js';


const read = (rel: string) => JSON.parse(readFileSync(join(repoRoot, rel), 'utf8')) as Record<string, any>;
const plugin = read('.claude-plugin/plugin.json');
const market = read('.claude-plugin/marketplace.json');
const hooksFile = read('hooks/hooks.json');
const pkg = read('package.json');

describe('plugin manifests: documented schema', () => {
  it('plugin.json, hooks/hooks.json and marketplace.json validate; every hook event is a documented one', () => {
    expect(validate(pluginManifestSchema, plugin)).toEqual([]);
    expect(validate(hooksFileSchema, hooksFile)).toEqual([]);
    expect(validate(marketplaceSchema, market)).toEqual([]);
    for (const e of Object.keys(hooksFile.hooks)) expect(DOCUMENTED_EVENTS, e).toContain(e);
  });

  it('controls: the schemas reject a manifest without a name or with spaces in it, a hook without command, an entry without source or with ".."', () => {
    const { name: _n, ...noName } = plugin;
    expect(validate(pluginManifestSchema, noName)).not.toEqual([]);
    expect(validate(pluginManifestSchema, { ...plugin, name: 'active brain' })).not.toEqual([]);
    expect(validate(pluginManifestSchema, { ...plugin, mcpServers: { x: { args: [] } } })).not.toEqual([]);
    expect(validate(hooksFileSchema, { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', timeout: 5 }] }] } })).not.toEqual([]);
    expect(validate(hooksFileSchema, { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] } })).not.toEqual([]);
    expect(validate(marketplaceSchema, { ...market, plugins: [{ name: PLUGIN_NAME }] })).not.toEqual([]);
    expect(validate(marketplaceSchema, { ...market, plugins: [{ name: PLUGIN_NAME, source: '../elsewhere' }] })).not.toEqual([]);
    expect(validate(marketplaceSchema, { ...market, plugins: [{ name: PLUGIN_NAME, source: './a/../..' }] })).not.toEqual([]);
    const { owner: _o, ...noOwner } = market;
    expect(validate(marketplaceSchema, noOwner)).not.toEqual([]);
  });
});

describe('plugin manifests: the same hook as `active-brain install`', () => {
  it('hooks.json is exactly what ops/plugin-manifest.ts builds; plugin.json declares its MCP server', () => {
    expect(hooksFile).toEqual(pluginHooks());
    expect(plugin.mcpServers).toEqual(pluginMcpServers());
    expect(plugin.mcpServers[PLUGIN_NAME]).toEqual({ command: 'sh', args: ['${CLAUDE_PLUGIN_ROOT}/bin/active-brain', 'mcp'] });
  });

  it('each event install registers: one handler, install\'s matcher and timeout (seconds), the cleared environment, the bundled hook through ${CLAUDE_PLUGIN_ROOT}', () => {
    expect(Object.keys(hooksFile.hooks).sort()).toEqual([...CLAUDE_EVENTS, 'SessionStart'].sort());
    for (const event of CLAUDE_EVENTS) {
      const groups = hooksFile.hooks[event];
      expect(groups).toHaveLength(1);
      expect(groups[0].matcher).toBe(EVENT_MATCHERS[event]);
      expect(groups[0].hooks).toEqual([{ type: 'command', command: pluginHookCommand(), timeout: HOOK_TIMEOUT_SECONDS }]);
      const cmd = groups[0].hooks[0].command as string;
      for (const v of HOOK_CLEARED_ENV) expect(cmd).toContain(` ${v}= `);
      expect(cmd).toMatch(/node "\$\{CLAUDE_PLUGIN_ROOT\}\/bin\/active-brain-hook\.cjs"$/);
    }
    // No PostToolUse: Claude Code sends failures (Bash exit ≠ 0, MCP isError) to PostToolUseFailure.
    expect(hooksFile.hooks.PostToolUse).toBeUndefined();
    expect(hooksFile.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: pluginSessionStartCommand(), timeout: HOOK_TIMEOUT_SECONDS }] }]);
  });
});

describe('plugin manifests: names, version, paths', () => {
  it('one name and one version: plugin.json = marketplace entry = package.json; the marketplace source is this repository root', () => {
    expect(plugin.name).toBe(PLUGIN_NAME);
    expect(market.name).toBe(MARKETPLACE_NAME);
    expect(market.plugins.map((p: { name: string }) => p.name)).toEqual([PLUGIN_NAME]);
    expect(plugin.version).toBe(pkg.version);
    expect(plugin.license).toBe(pkg.license);
    const root = resolve(repoRoot, market.plugins[0].source);
    expect(root).toBe(resolve(repoRoot));
    expect(existsSync(join(root, '.claude-plugin', 'plugin.json'))).toBe(true);
    expect(existsSync(join(root, 'hooks', 'hooks.json'))).toBe(true); // the default location: plugin.json must not name it again
    expect(plugin.hooks).toBeUndefined();
  });

  it('every ${CLAUDE_PLUGIN_ROOT}/… path in the manifests exists in the repository (a file, checked in, not built)', () => {
    const texts = [JSON.stringify(hooksFile), JSON.stringify(plugin)];
    const paths = texts.flatMap((t) => [...t.matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([^"\\\s]+)/g)].map((m) => m[1]));
    expect(new Set(paths)).toEqual(new Set(['bin/active-brain-hook.cjs', 'hooks/session-start.cjs', 'bin/active-brain']));
    for (const p of paths) {
      expect(existsSync(join(repoRoot, p)), p).toBe(true);
      expect(statSync(join(repoRoot, p)).isFile(), p).toBe(true);
      expect(p.startsWith('dist/'), p).toBe(false); // dist/ may be absent: the launchers cope
    }
    expect(PLUGIN_ROOT_VAR).toBe('${CLAUDE_PLUGIN_ROOT}');
  });

  it('bin/ (on the Bash tool\'s PATH while the plugin is enabled) holds an executable `active-brain`, so an offer\'s recall hint runs there', () => {
    for (const f of ['active-brain', 'active-brain.js', 'active-brain-hook.cjs']) expect(statSync(join(repoRoot, 'bin', f)).mode & 0o111, f).not.toBe(0);
    const r = spawnSync('active-brain', ['--version'], { env: { PATH: `${join(repoRoot, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});
