/**
 * `uninstall` undoes `install` exactly (ops/hook-install-record.ts, ops/hook-settings-text.ts): the
 * user's file comes back byte for byte when nothing else changed it since install; a file
 * install created is removed; a file changed since keeps everything but our entries, in its
 * own formatting; the backup holds the user's original, not our hooks. Real files in a temp
 * dir, through installHook / uninstallHook (what the CLI and setup call), and the CLI once.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { installHook, uninstallHook, BACKUP_SUFFIX } from '../../ops/hook-install-files.js';
import { countOurs, withHookInstalled, withHookRemoved } from '../../ops/hook-install.js';
import { removeOursFromText, parseSpans } from '../../ops/hook-settings-text.js';
import { planUninstall, nextRecord } from '../../ops/hook-install-record.js';
import { ROOT, tempDir } from '../hook/helpers.js';

const CMD = 'node /opt/ab/bin/active-brain-hook.cjs';
const opts = (d: string, over = {}) => ({ scope: 'user' as const, cwd: d, env: { CLAUDE_CONFIG_DIR: d }, dryRun: false, command: CMD, ...over });

/** A user's file in a formatting of their own: tabs, a compact array, no trailing newline. */
const USER_TEXT = '{\n\t"model": "opus",\n\t"permissions": {"allow": ["Bash(ls:*)", "Read"]},\n\t"hooks": {\n\t\t"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]}]\n\t}\n}';

describe('uninstall restores what install changed', () => {
  it('nothing changed it since install: the original comes back byte for byte, and no .bak or record is left', () => {
    const d = tempDir();
    const p = join(d, 'settings.json');
    writeFileSync(p, USER_TEXT);
    const inst = installHook(opts(d));
    expect(inst.changed).toBe(true);
    expect(readFileSync(p + BACKUP_SUFFIX, 'utf8')).toBe(USER_TEXT); // the backup is the user's original
    // a second install (an upgrade) does not overwrite the backup with our own hooks
    installHook(opts(d, { command: `${CMD} ` }));
    expect(readFileSync(p + BACKUP_SUFFIX, 'utf8')).toBe(USER_TEXT);
    const un = uninstallHook(opts(d));
    expect(un).toMatchObject({ action: 'removed', undo: 'restored-original' });
    expect(readFileSync(p, 'utf8')).toBe(USER_TEXT);
    expect(readdirSync(d)).toEqual(['settings.json']);
  });

  it('install created the file: uninstall removes it', () => {
    const d = tempDir();
    installHook(opts(d));
    expect(existsSync(join(d, 'settings.json' + BACKUP_SUFFIX))).toBe(false); // nothing of the user's to keep
    expect(uninstallHook(opts(d))).toMatchObject({ undo: 'deleted-created' });
    expect(readdirSync(d)).toEqual([]);
  });

  it('changed since install: only our entries go, the user\'s own edit and formatting stay; the .bak keeps the original', () => {
    const d = tempDir();
    const p = join(d, 'settings.json');
    writeFileSync(p, USER_TEXT);
    installHook(opts(d));
    // the user edits the file by hand after install: a compact line of their own
    const edited = readFileSync(p, 'utf8').replace('"model": "opus"', '"model": "sonnet",\n  "env": {"A":"1"}');
    writeFileSync(p, edited);
    const un = uninstallHook(opts(d));
    expect(un).toMatchObject({ undo: 'removed-entries', undoNote: 'changed since install', backup: p + BACKUP_SUFFIX });
    const after = readFileSync(p, 'utf8');
    expect(countOurs(JSON.parse(after))).toBe(0);
    expect(JSON.parse(after)).toEqual(withHookRemoved(JSON.parse(edited)).settings);
    expect(after).toContain('"model": "sonnet",\n  "env": {"A":"1"}'); // their formatting, byte for byte
    expect(readFileSync(p + BACKUP_SUFFIX, 'utf8')).toBe(USER_TEXT);
  });

  it('a file that already had an older registration of ours is not "restored" to it', () => {
    const older = JSON.stringify(withHookInstalled({ model: 'opus' }, 'node /old/active-brain-hook.js').settings, null, 2);
    const rec = nextRecord(null, { exists: true, text: older, ours: 3 }, 'new');
    expect(planUninstall(rec, 'new', older)).toMatchObject({ kind: 'remove-entries' });
    // control: the same record without our entries in the original restores it
    expect(planUninstall({ ...rec, original_ours: 0 }, 'new', older)).toEqual({ kind: 'restore', text: older });
    // a backup changed since install cannot be trusted as the original
    expect(planUninstall({ ...rec, original_ours: 0 }, 'new', older + ' ')).toMatchObject({ kind: 'remove-entries' });
  });

  it('the CLI says which undo it did', () => {
    const d = tempDir();
    const p = join(d, 'claude', 'settings.json');
    mkdirSync(join(d, 'claude'));
    writeFileSync(p, USER_TEXT);
    const env = { PATH: process.env.PATH, HOME: d, CLAUDE_CONFIG_DIR: join(d, 'claude'), ACTIVE_BRAIN_HOME: join(d, 'home') };
    const cli = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin', 'active-brain.js'), ...args], { env, encoding: 'utf8' });
    expect(cli(['install']).status).toBe(0);
    const un = cli(['uninstall']);
    expect(un.status).toBe(0);
    expect(un.stdout).toContain('back to what it was before install, byte for byte');
    expect(readFileSync(p, 'utf8')).toBe(USER_TEXT);
  });
});

describe('removing our entries from the text (property)', () => {
  const entry = fc.record({ type: fc.constant('command'), command: fc.constantFrom('fmt.sh', 'lint --fix', 'echo hi') });
  const group = fc.record({ matcher: fc.option(fc.constantFrom('Bash', 'Edit|Write', 'mcp__.*'), { nil: undefined }), hooks: fc.array(entry, { minLength: 1, maxLength: 3 }) });
  const events = fc.dictionary(fc.constantFrom('UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionStart'), fc.array(group, { maxLength: 3 }));
  const settings = fc.record({ model: fc.option(fc.constantFrom('opus', 'sonnet'), { nil: undefined }), hooks: fc.option(events, { nil: undefined }), env: fc.option(fc.dictionary(fc.stringMatching(/^[A-Z]{1,4}$/), fc.string({ maxLength: 6 })), { nil: undefined }) })
    .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
  const indent = fc.constantFrom<string | number>(0, 2, 4, '\t');

  it('the result parses to exactly what withHookRemoved gives, and every other value keeps its text', () => {
    fc.assert(
      fc.property(settings, indent, fc.boolean(), (user, ind, nl) => {
        const installed = withHookInstalled(user, CMD).settings;
        const text = JSON.stringify(installed, null, ind) + (nl ? '\n' : '');
        const out = removeOursFromText(text);
        expect(out).not.toBeNull();
        expect(JSON.parse(out!)).toEqual(withHookRemoved(installed).settings);
        expect(out!.endsWith('\n')).toBe(nl);
        // the user's values that are not hooks keep their exact text
        if (user.env !== undefined) {
          const root = parseSpans(text);
          const envProp = root.kind === 'object' ? root.props.find((p) => p.key === 'env')! : null;
          expect(out!).toContain(text.slice(envProp!.value.start, envProp!.value.end));
        }
      }),
    );
  });

  it('control: nothing of ours, nothing to remove', () => {
    fc.assert(fc.property(settings, (user) => {
      expect(removeOursFromText(JSON.stringify(user, null, 2))).toBeNull();
    }));
  });
});
