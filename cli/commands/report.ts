/**
 * `active-brain report --html FILE`: one self-contained HTML page (ops/report-html.ts) of what
 * the product saw and said on this machine — soak gates, labels, a timeline per session —
 * from the live logs (ops/report-model.ts). Written atomically; nothing else is changed.
 */
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { writeFileAtomic } from '../../shared/atomic.js';
import { liveReportModel } from '../../ops/report-model.js';
import { renderReport, sessionsLine } from '../../ops/report-html.js';

/** Check, before any long work, that the page can be written there: its folder exists and
 *  takes a new file (a probe file, created and removed), and the path is not a folder. */
export function checkReportPath(path: string): void {
  const abs = resolve(path);
  const fail = (why: string) => {
    throw new UserError(`cannot write ${abs}: ${why}; choose a writable path`, EXIT.ENV);
  };
  try {
    if (statSync(abs).isDirectory()) fail('it is a folder');
  } catch (e) {
    if (e instanceof UserError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') fail((e as NodeJS.ErrnoException).code ?? String(e));
  }
  const probe = join(dirname(abs), `.${basename(abs)}.probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    fail(code === 'ENOENT' ? `its folder ${dirname(abs)} does not exist` : code ?? String(e));
  }
  rmSync(probe, { force: true });
}

export function writeReport(path: string, html: string): { path: string; bytes: number } {
  const abs = resolve(path);
  try {
    writeFileAtomic(abs, html);
  } catch (e) {
    throw new UserError(`cannot write ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; choose a writable path`, EXIT.ENV);
  }
  return { path: abs, bytes: Buffer.byteLength(html) };
}

export const command: Command = {
  name: 'report',
  summary: 'one self-contained HTML page: soak gates, labels, session timelines',
  help: `usage: active-brain report --html FILE [--json] [--set key.path=value ...]

Writes one self-contained HTML file (no network, no external script, style or font). Its first
screen: every line the hook printed (or would have, in soak) on both channels with its text,
how often (per 100 prompts and per 100 tool steps), and for each Past fix whether the session
then confirmed it (ran that fix and got the failing call through; the tool steps in between).
Then the soak gates, label counts with the usefulness interval, and a timeline per session
with an offer (prompts and tool steps, drift and stall scores against their thresholds, tool
errors, triggers, offers and what the hook did with them, silences by reason); sessions
without an offer are folded. From the live logs in $ACTIVE_BRAIN_HOME/logs; for your history before
the soak, use "active-brain backtest --html FILE".
--json prints {"path", "bytes", "sessions"} (sessions: as the page's header counts them). Exit 0 written, 2 usage error, 3 not writable.`,
  async run(argv) {
    const { values } = parseFlags(argv, { html: { type: 'string' } }, false);
    if (!values.html) throw new UserError('report needs --html FILE, e.g. active-brain report --html ~/active-brain.html', EXIT.USAGE);
    checkReportPath(values.html);
    const { config } = loadConfig({ flags: values.set });
    const model = liveReportModel(config);
    const out = writeReport(values.html, renderReport(model));
    // The same session count as the page's header.
    if (values.json) printJson({ ...out, sessions: model.counts.sessions });
    else process.stdout.write(`wrote ${out.path} (${Math.round(out.bytes / 1024)} KB; ${sessionsLine(model.counts)})\n`);
    return EXIT.OK;
  },
};
