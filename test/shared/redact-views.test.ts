/**
 * The detectors issue 38 added (shared/redact-views.ts, shared/redact-rules.ts), as property
 * tests with their non-secret controls:
 *   split tokens      a token cut by a line break anywhere is caught whole; prose and code
 *                     lines that merely end and start with letters stay apart
 *   base64            base64 (wrapped or not) of a key or of a `.env` is caught; base64 of
 *                     ordinary text, hashes, paths and image bytes is left alone
 *   *_KEY / *PASSWORD*  a random-looking value under any `*_KEY` name, any value under
 *                     SECRET_KEY / *PASSWORD*_X names; `PRIMARY_KEY=id`-style names and counts
 *                     (`max_tokens`) are left alone
 *   URL userinfo      the password with an empty user (`redis://:pw@host`)
 *   mysql -p          the glued password of the MySQL/MariaDB clients; `mkdir -p`, `ls -p`,
 *                     `grep -p`, a lone `mysql -p`, `-P 3306` are left alone
 * And for every text: what redact() returns has no finding (store scan agrees with redaction).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRedactor, BASE64_KIND } from '../../shared/redact.js';
import { joinedView, decodedText, base64Runs } from '../../shared/redact-views.js';
import { randomLooking } from '../../shared/redact-rules.js';
import { PROBE_SHAPES } from '../../eval/secret-shapes.js';
import { seededRandom } from '../../shared/prng.js';

const r = createRedactor();
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random token of `chars` that mixes upper case, lower case and digits. */
const tokenOf = (chars: string, min: number, max: number) =>
  fc
    .array(fc.constantFrom(...chars.split('')), { minLength: min, maxLength: max })
    .map((cs) => cs.join(''))
    .filter((s) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s));

/** Leaked: the value, or a 12-character piece of it, is still there. */
function leaked(value: string, out: string): boolean {
  for (let i = 0; i + 12 <= value.length; i++) if (out.includes(value.slice(i, i + 12))) return true;
  return out.includes(value);
}

/** A 12-character piece of `value` is still there. */
function pieceLeaked(value: string, out: string): boolean {
  for (let i = 0; i + 12 <= value.length; i++) if (out.includes(value.slice(i, i + 12))) return true;
  return false;
}

const words = fc.array(fc.constantFrom('the', 'deploy', 'failed', 'config', 'loaded', 'run', 'again', 'with', 'value', 'ok'), { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));

describe('split tokens: re-joined across a line break', () => {
  it('property: a GitHub token or an OpenAI key cut at any place by a line break (indent or not) is caught whole', () => {
    fc.assert(
      fc.property(tokenOf(ALNUM, 36, 36), tokenOf(ALNUM, 48, 60), fc.nat(), fc.constantFrom('\n', '\r\n', '\n  ', ' \n\t'), words, words, (gh, oa, at, br, before, after) => {
        for (const v of [`ghp_${gh}`, `sk-${oa}`]) {
          const cut = 4 + (at % (v.length - 8));
          const text = `${before} ${v.slice(0, cut)}${br}${v.slice(cut)} ${after}`;
          const out = r.redact(text);
          // Neither half, nor a 12-character piece of one (a tail shorter than that is no leak).
          expect(leaked(v, out) || pieceLeaked(v.slice(0, cut), out) || pieceLeaked(v.slice(cut), out), JSON.stringify(text)).toBe(false);
          expect(r.findings(out)).toEqual([]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('control: lines of prose and code are not joined into anything (nothing found, text unchanged)', () => {
    const keep = [
      'const total = items.length\nreturn total',
      'first line ends here\nsecond line begins',
      'build/output/app.js\nbuild/output/vendor.js',
      'Step 1/12 : FROM node:20\nStep 2/12 : WORKDIR /app',
      'abc123def456\nghi789',
    ];
    for (const t of keep) expect(r.redact(t), t).toBe(t);
    fc.assert(
      fc.property(fc.array(words, { minLength: 2, maxLength: 6 }), (lines) => {
        const t = lines.join('\n');
        expect(r.redact(t)).toBe(t);
      }),
    );
  });

  it('a token whole on its line is not run into the next line\'s word', () => {
    const v = `ghp_${'aB3'.repeat(12)}`;
    expect(r.redact(`${v}\nExit code 1`)).toBe('‹secret:github-token›\nExit code 1');
  });

  it('the view maps back: only in-token breaks are removed', () => {
    const v = joinedView('key: aB12cD34eF56\ngH78iJ90kL12 end\nplain words\nhere');
    expect(v?.text).toBe('key: aB12cD34eF56gH78iJ90kL12 end\nplain words\nhere');
    expect(joinedView('"v": "aB12cD34eF56\\ngH78iJ90kL12"')?.text).toBe('"v": "aB12cD34eF56gH78iJ90kL12"'); // a `\n` inside a JSON string
    // Hashes and numbers (one case, or no letters) are not joined: not how a token looks.
    expect(joinedView('3f9a2b1c4d5e6f70\n8192a3b4c5d6e7f8')).toBeNull();
    expect(joinedView('no breaks here')).toBeNull();
  });
});

describe('base64 runs: decoded and scanned', () => {
  it('property: base64 (76-column lines or one line) of a .env holding a password or of a key is caught; the decoded values never appear', () => {
    fc.assert(
      fc.property(tokenOf(ALNUM, 16, 24), tokenOf(ALNUM, 36, 36), fc.boolean(), fc.boolean(), words, (pw, gh, wrap, env, before) => {
        const plain = env ? `NODE_ENV=production\nDB_PASSWORD=${pw}!\nPORT=8080\n` : `ghp_${gh}`;
        const b = Buffer.from(plain).toString('base64');
        const text = `${before} ${wrap ? b.replace(/.{76}(?=.)/g, '$&\n') : b} done`;
        const out = r.redact(text);
        for (const line of b.replace(/.{76}(?=.)/g, '$&\n').split('\n')) if (line.length >= 12) expect(leaked(line, out), text).toBe(false);
        expect(r.findings(out)).toEqual([]);
        expect(out).toContain(`‹secret:${BASE64_KIND}›`);
      }),
      { numRuns: 150 },
    );
  });

  it('control: base64 of ordinary text, image bytes, hex digests, paths and words are left alone', () => {
    fc.assert(
      fc.property(fc.array(words, { minLength: 2, maxLength: 8 }), (ws) => {
        const t = `echo ${Buffer.from(ws.join('\n')).toString('base64')} | base64 -d`;
        expect(r.redact(t)).toBe(t);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 300 }), (bytes) => {
        const b = Buffer.from(bytes).toString('base64');
        expect(decodedText(b) === null || r.findings(decodedText(b)!).length === 0).toBe(true);
      }),
    );
    const keep = ['sha512-Jy8OK0rxVn1OWhQG3HM7hQsUcMA2XS1oVrn2rr7Nq5z5Jr4AqPqHgKv2OXUTB7yY7hW3NjGpQz3k9mDHa0i8Tg==', 'commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c', '/Users/Dev/Projects/ActiveBrain/src/components/Header.tsx'];
    for (const t of keep) expect(r.redact(t), t).toBe(t);
  });

  it('base64Runs needs both letter cases; decodedText refuses bytes', () => {
    expect(base64Runs('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0123456789abcdef0123456789abcdef')).toEqual([]);
    expect(decodedText(Buffer.from([0, 1, 2, 255, 254, 128, 7, 9, 200, 201, 3, 4, 5, 6, 7, 8]).toString('base64'))).toBeNull();
    expect(decodedText(Buffer.from('hello there, plain text').toString('base64'))).toBe('hello there, plain text');
  });
});

describe('assignments: any *_KEY, *_SECRET, *_TOKEN, *PASSWORD* name', () => {
  const names = fc.constantFrom('ENCRYPTION_KEY', 'SIGNING_KEY', 'hmacKey', 'session-key', 'SECRET_KEY', 'JWT_SECRET', 'CSRF_TOKEN', 'ADMIN_PASSWORD_PROD', 'DB_PASSWORD', 'password_hash');
  it('property: a random-looking value under such a name, in .env, YAML, JSON or code, is caught', () => {
    fc.assert(
      fc.property(names, tokenOf(ALNUM, 16, 64), fc.constantFrom('env', 'yaml', 'json', 'code'), (name, v, form) => {
        const text = form === 'env' ? `${name}=${v}` : form === 'yaml' ? `  ${name}: ${v}` : form === 'json' ? JSON.stringify({ [name]: v }) : `const ${name} = "${v}";`;
        const out = r.redact(text);
        expect(leaked(v, out), text).toBe(false);
        expect(r.findings(out)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('control (the rule: a *_KEY value is a secret only with a 10+ run mixing letters and digits): names of columns, sorts, caches and counts stay', () => {
    const keep = [
      'PRIMARY_KEY=id',
      'FOREIGN_KEY=user_id',
      'SORT_KEY=created_at',
      'CACHE_KEY=user:1234:profile',
      'partitionKey: "tenant_id"',
      'sortKey = "updatedAt"',
      'hotkey=ctrl+shift+k',
      'max_tokens: 4096',
      'token_count=120000',
      'AWS_ACCESS_KEY_ID_LABEL=prod',
      'KEY=value',
    ];
    for (const t of keep) expect(r.redact(t), t).toBe(t);
    fc.assert(
      fc.property(fc.constantFrom('PRIMARY_KEY', 'SORT_KEY', 'cacheKey', 'ROUTING_KEY'), fc.array(fc.constantFrom('user', 'id', 'created', 'at', '2024', 'v2', 'tenant', 'name'), { minLength: 1, maxLength: 4 }), fc.constantFrom('_', ':', '.', '-'), (name, parts, sep) => {
        const t = `${name}=${parts.join(sep)}`;
        expect(r.redact(t)).toBe(t);
      }),
    );
    expect(randomLooking('9f8e7d6c5b4a')).toBe(true);
    expect(randomLooking('user_1234_profile')).toBe(false);
  });
});

describe('URL userinfo and mysql -p', () => {
  it('property: the password of a URL with an empty or any user is caught', () => {
    fc.assert(
      fc.property(fc.constantFrom('redis', 'rediss', 'postgres', 'mysql', 'amqp', 'mongodb+srv', 'https'), fc.constantFrom('', 'default', 'app_user'), tokenOf(ALNUM, 8, 32), (scheme, user, pw) => {
        const text = `connect ${scheme}://${user}:${pw}@cache.internal:6379/0 now`;
        const out = r.redact(text);
        expect(out.includes(pw), text).toBe(false);
        expect(out).toContain(`${scheme}://${user}:‹secret:url-password›@cache.internal`);
      }),
    );
    for (const t of ['redis://cache.internal:6379/0', 'http://localhost:8080/x', 'git@github.com:a/b.git']) expect(r.redact(t)).toBe(t);
  });

  it('property: `-p<password>` of the MySQL and MariaDB clients is caught, wherever it stands among the flags', () => {
    fc.assert(
      fc.property(fc.constantFrom('mysql', 'mysqldump', 'mysqladmin', 'mariadb', 'mariadb-dump'), tokenOf(ALNUM + '!#%', 4, 24), fc.constantFrom('-h db -uroot', '-uroot', '--host=db -u app', ''), fc.constantFrom('app_db', '< dump.sql', '-e "SELECT 1"', ''), (prog, pw, pre, post) => {
        const text = `${prog} ${pre} -p${pw} ${post}`.replace(/\s+/g, ' ');
        const out = r.redact(text);
        expect(out.includes(pw), text).toBe(false);
        expect(out).toContain('-p‹secret:mysql-password›');
      }),
    );
  });

  it('control: -p of other programs, a lone -p (asks for it), -P (the port) and a variable are left alone', () => {
    const keep = ['mkdir -p build/out', 'ls -p /tmp', 'grep -p foo x.txt', 'cp -p a b', 'mysql -p app_db', 'mysql -h db -P 3306 -u root -p', 'mysql -uroot -p$MYSQL_PWD app', 'mysql -uroot -p"${MYSQL_PASSWORD}" app', 'docker run -p8080:80 nginx'];
    for (const t of keep) expect(r.redact(t), t).toBe(t);
  });
});

describe('every shape of the probe, and what redact() returns has no finding', () => {
  it('each probe shape is caught standing alone, in prose, in JSON and in a command', () => {
    const rnd = seededRandom(99);
    for (const s of PROBE_SHAPES) {
      const { framed, values } = s.make(rnd);
      for (const text of [framed, `I used ${framed} there.`, JSON.stringify({ v: framed }), `./configure --set ${framed} && npm run deploy`]) {
        const out = r.redact(text);
        for (const v of values) expect(leaked(v, out), `${s.name}: ${text.slice(0, 80)}`).toBe(false);
      }
    }
  });

  it('a value glued to a line-broken base64 blob of a key (each pass joined the next line): what redact() returns has no finding and none of the blob (control: the blob alone is redacted whole)', () => {
    const blob = 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQorbVl4Ulhxd2l2WW5QRVpPd0tVNEdWNzRs\ndTNBTU5hZEpkWEFBb2JUQ2NQeDNpdS85VjMwejdzdFVUZ3lWd0RrCkFrZUNEWkxydWl6eHhnUTc2\naDg3VjZ5ZlpSZjl1OFd3dm91bjBGeTZMWnZ4Z2I4L0pxUGtlaWFybTFHTTNFMFUKbUcrUUVvZ0x6\nN3JDTGxPVHZiS0dlczhwcWVXRlVrbjVFUUVmdDdGeDljNDFkRFB6Slh5cmFneHMwcVNMODBYZgpX\nMHk5eWRVWEZlTUhWaVFvOC9FNzF0M2N5NjFWSTNhREJ4Rk5iUDd0VytVUWxnOTBDMzl6QWRPZ0RL\nMUlKajRjCjkzZWd0eFpFcUtKZmpBUS9reTRyYjJkeFpGMEpJTk96QmlXakhGQ3ZSUnFrUmRZTDZU\nUXgwZXEzajNVd2xxL3kKUmxnOVFXYTg3anZYa0ZMcldqdU11QytoWWx2WnFjTVdjSE1sdFZBRng4\nSmtKd0sxWS9kbFVmcGo0SUlXSUVwWQotLS0tLUVORCBSU0EgUFJJVkFURSBLRVktLS0tLQo=';
    const text = 'SECRET_KEY=django-insecure-esn8(0z7i0g%p=O2m0(_)@fs!#kc%nizg&p2%79lu^(or6c2-q' + blob + 'sk-proj-WbEBFxXbd8atsVWII6UMoVCr6j0p6Hhp591m99j0AhUujw-j0bpvjTPAB81oAnmt_R_pzn1I_gkKZN03vq_mv9f1Oly2MjehLQce' + 'DB_PASSWORD=EjWD5QJRu7VxWz!63' + blob;
    const out = r.redact(text);
    expect(r.findings(out)).toEqual([]);
    expect(r.redact(out)).toBe(out);
    for (const line of blob.split('\n')) expect(out).not.toContain(line.slice(0, 24));
    const alone = r.redact(`key: ${blob}`);
    expect(r.findings(alone)).toEqual([]);
    expect(alone).not.toContain(blob.slice(0, 24));
    expect(alone.startsWith('key: ')).toBe(true);
  });

  it('property: redact() is a fixed point of findings on random text with planted pieces', () => {
    const rnd = seededRandom(7);
    const pieces = PROBE_SHAPES.map((s) => s.make(rnd).framed);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom(...pieces), words, fc.constantFrom('\n', ' ', '=', ':', '"')), { maxLength: 12 }), (parts) => {
        const out = r.redact(parts.join(''));
        expect(r.findings(out)).toEqual([]);
        expect(r.redact(out)).toBe(out);
      }),
      { numRuns: 300 },
    );
  });
});
