/**
 * An independent secret scanner for the redaction benchmark: NOT the product's detector
 * (shared/redact-rules.ts) — its own pattern list, written from the providers' token formats
 * and gitleaks-style generic rules, with its own (simpler) placeholder test — so a leak the
 * product's rules miss is not hidden by reusing them. When secretlint is installed
 * (SECRETLINT_DIR=<folder holding node_modules/@secretlint/...>), its recommended preset runs
 * too. Findings carry the value, so the bench can also look for each value found in the
 * input in what the product wrote.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface IndependentFinding {
  rule: string;
  value: string;
}

const GENERIC_NAMES = '(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret|private[_-]?key)';

/** [rule, regex with group 1 = the value when the match is longer]. */
const PATTERNS: ReadonlyArray<[string, RegExp]> = [
  ['anthropic', /\b(sk-ant-[A-Za-z0-9_-]{32,})/g],
  ['openai', /\b(sk-(?:proj-|svcacct-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,})/g],
  ['aws', /\b((?:AKIA|ASIA)[0-9A-Z]{16})\b/g],
  ['github', /\b(gh[pousr]_[0-9A-Za-z]{36,}|github_pat_[0-9A-Za-z_]{40,})/g],
  ['gitlab', /\b(glpat-[0-9A-Za-z_-]{20,})/g],
  ['slack', /\b(xox[abposr]-[0-9A-Za-z-]{10,}|hooks\.slack\.com\/services\/[0-9A-Za-z/]{20,})/g],
  ['google', /\b(AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{30,})/g],
  ['stripe', /\b([rs]k_live_[0-9A-Za-z]{16,})/g],
  ['npm', /\b(npm_[0-9A-Za-z]{36})\b/g],
  ['huggingface', /\b(hf_[A-Za-z0-9]{32,})\b/g],
  ['private-key', /(-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----)/g],
  ['jwt', /\b(eyJ[0-9A-Za-z_-]{10,}\.eyJ[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]{16,})/g],
  ['bearer', /\b[Bb]earer\s+((?=[0-9A-Za-z._~+/-]*\d)[0-9A-Za-z._~+/-]{20,})/g],
  ['url-credentials', /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]{1,64}:([^\s@/'"]{6,})@[a-z0-9.-]+/gi],
  ['generic-assignment', new RegExp(`\\b[A-Za-z0-9_]*${GENERIC_NAMES}["']?\\s*[=:]\\s*["']?((?=[^\\s"']*\\d)(?=[^\\s"']*[A-Za-z])[^\\s"'\`<>{}$(),;]{10,})`, 'gi')],
];

/** The scanner's own idea of a stand-in value (deliberately simple: it may over-report). */
function placeholder(v: string): boolean {
  return /^(?:\$|%|<|\{|\*)|changeme|example|placeholder|your[-_]|xxxx|[‹›]/i.test(v); // ‹…›: the product's redaction marker
}

export function independentScan(text: string): IndependentFinding[] {
  const out: IndependentFinding[] = [];
  for (const [rule, re] of PATTERNS) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const value = m[1] ?? m[0];
      if (!placeholder(value)) out.push({ rule, value });
    }
  }
  return out;
}

type LintSource = (o: unknown) => Promise<{ messages: Array<{ ruleId: string; range: [number, number] }> }>;

/** secretlint's recommended preset, when SECRETLINT_DIR points at an install; else null. */
export async function loadSecretlint(env: NodeJS.ProcessEnv = process.env): Promise<((text: string) => Promise<IndependentFinding[]>) | null> {
  const dir = env.SECRETLINT_DIR;
  if (!dir) return null;
  try {
    const req = createRequire(join(dir, 'node_modules', 'x.js'));
    const core = await import(req.resolve('@secretlint/core'));
    const preset = await import(req.resolve('@secretlint/secretlint-rule-preset-recommend'));
    const lintSource = core.lintSource as LintSource;
    const rule = preset.creator;
    return async (text: string) => {
      const r = await lintSource({
        source: { filePath: 'scan.txt', content: text, ext: '.txt', contentType: 'text' },
        options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule }] }, maskSecrets: false },
      });
      return r.messages.map((m) => ({ rule: `secretlint:${m.ruleId.replace('@secretlint/secretlint-rule-', '')}`, value: text.slice(m.range[0], m.range[1]) }));
    };
  } catch {
    return null;
  }
}
