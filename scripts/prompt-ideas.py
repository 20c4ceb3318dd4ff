#!/usr/bin/env python3
"""
Offline estimates of prompt-channel ideas against the judged prompt gold (issue 39; the figures
of docs/OFFERS.md "Ideas measured, none kept", items 2-8). Not product code: each idea is
simulated over the raw transcripts of ../shared/eval/claude-code-real/projects in time order
(a session sees only earlier sessions; worker sessions, entrypoint sdk-cli, get no offer) and
scored as prompt-gold/README.md says (right: from a source session and not from a candidate
judged N; wrong: any other offer at a judged prompt; unjudged: at a prompt the gold does not
name). Values are chosen leave-one-project-out: by precision on two projects, reported on the
third. The product's own figure is `active-brain eval prompts --gold` (eval/prompts.ts).

usage: python3 scripts/prompt-ideas.py <eval>/claude-code-real
Reads the eval set; writes nothing.
"""
import json, math, os, re, sys
from collections import Counter

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('ACTIVE_BRAIN_EVAL_DIR', '../shared/eval') + '/claude-code-real'
PROJECTS = ['-home-ken', '-home-anthony', 'c--Users-ASUS-Desktop-Gemini-3-hack']
STOP = set("""the a an and or to of in on for with is are was were be been it this that these those i you we they he she my your
our their me us can could would should will shall do does did done have has had not no yes so if then than but as at by from
into about up out over also just now all any some more most other such only own same too very what which who whom when where
why how there here its let make sure please need want like get got use using used run new add update check file files work
working think right okay ok still well one two way thing things see look go going know""".split())
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_\-\.]{2,}")
# An outcome that states a fact: a path, a file name, a URL or a branch; and reports completion.
FACT = re.compile(r"(?:~|/)(?:[\w.\-]+/)+[\w.\-]*|\b[\w\-]+\.(?:sh|py|ts|tsx|js|json|md|toml|yml|yaml|sql)\b|https?://\S+|\bbranch\s+`?[\w./\-]+")
DONE = re.compile(r"✅|\b(done|completed?|created|implemented|pushed|committed|available at|is now|are now|successfully|finished|added)\b", re.I)
NOT_FOUND = re.compile(r"No such file or directory|does not exist|not found|cannot find|could not find|ENOENT", re.I)
PATH = re.compile(r"(?:~|/|\.{1,2}/)?(?:[\w.\-]+/)+[\w.\-]+|[\w\-]+\.(?:sh|py|ts|tsx|js|json|md|toml|yml|yaml|sql|env)\b")
OUTCOME_CHARS = 800


def terms(t):
    return set(w.lower().strip('.-_') for w in TOKEN.findall(t or '') if w.lower().strip('.-_') not in STOP)


def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return '\n'.join(x.get('text', '') for x in c if isinstance(x, dict) and x.get('type') == 'text')
    return ''


def read_session(project, session):
    """Typed prompts in order, each with its exchange: assistant text, failed lookups, files touched/written."""
    out, cur, calls, touched = [], None, {}, set()
    for line in open(f'{ROOT}/projects/{project}/{session}.jsonl', encoding='utf8'):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get('isSidechain'):
            continue
        if r.get('type') == 'user':
            c = r.get('message', {}).get('content')
            if isinstance(c, list) and any(isinstance(x, dict) and x.get('type') == 'tool_result' for x in c):
                for x in c if cur else []:
                    if isinstance(x, dict) and x.get('type') == 'tool_result':
                        t = x.get('content')
                        t = t if isinstance(t, str) else text_of(t)
                        if NOT_FOUND.search((t or '')[:600]):
                            cur['fails'].append(calls.get(x.get('tool_use_id'), '') + ' ' + (t or '')[:600])
                        cur['text'].append((t or '')[:2000])
                continue
            t = text_of(c)
            if t.strip() and not r.get('isMeta'):
                cur = {'uuid': r['uuid'], 'prompt': t, 'assistant': [], 'fails': [], 'text': [t], 'before': set(touched), 'written': set()}
                out.append(cur)
        elif r.get('type') == 'assistant' and cur:
            for x in r['message'].get('content', []):
                if not isinstance(x, dict):
                    continue
                if x.get('type') == 'text':
                    cur['assistant'].append(x['text'])
                    cur['text'].append(x['text'])
                if x.get('type') == 'tool_use':
                    inp = x.get('input') or {}
                    calls[x.get('id')] = json.dumps(inp)[:400]
                    cur['text'].append(calls[x.get('id')])
                    fp = inp.get('file_path') or inp.get('notebook_path') or inp.get('path')
                    if isinstance(fp, str):
                        b = fp.replace('\\', '/').rstrip('/').split('/')[-1].lower()
                        touched.add(b)
                        if x.get('name') in ('Write', 'Edit', 'MultiEdit'):
                            cur['written'].add(b)
    return out


def sessions_in_order(project):
    rows = []
    for f in os.listdir(f'{ROOT}/projects/{project}'):
        if not f.endswith('.jsonl'):
            continue
        first, entry = None, None
        for line in open(f'{ROOT}/projects/{project}/{f}', encoding='utf8'):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            first = first or r.get('timestamp')
            entry = entry or r.get('entrypoint')
            if first and entry:
                break
        rows.append((first or '9', f[:-6], entry == 'sdk-cli'))
    return sorted(rows)


CACHE = {}


def load(project):
    if project not in CACHE:
        gold = json.load(open(f'{ROOT}/prompt-gold/{project}.json', encoding='utf8'))
        seen, sessions = set(), []
        for _, s, worker in sessions_in_order(project):
            own = [e for e in read_session(project, s) if e['uuid'] not in seen]  # a resumed copy's prompts are history
            seen.update(e['uuid'] for e in own)
            for e in own:
                a = '\n'.join(e['assistant'])
                e['tail'] = a[-OUTCOME_CHARS:]
                e['outcome'] = bool(FACT.search(e['tail']) and DONE.search(e['tail']))
            sessions.append({'id': s, 'worker': worker, 'exchanges': own})
        CACHE[project] = ({it['uuid']: it for it in gold['items']}, sessions)
    return CACHE[project]


def judge(items, uuid, session, exchange, res):
    it = items.get(uuid)
    if it is None:
        res['unjudged'] += 1
        return
    ok = it['needs_past'] and any(x['session'] == session for x in it['sources']) and not any(
        c['session'] == session and c['uuid'] == exchange and c['verdict'] == 'N' for c in it['judged_candidates'])
    res['right' if ok else 'wrong'] += 1
    res['hit'] += int(ok)


def simulate(project, choose):
    """Walk the project in time order; `choose(state, session, exchange, prev)` returns (session, exchange uuid) or None."""
    items, sessions = load(project)
    st = {'df': Counter(), 'n': 0, 'done': []}
    res = Counter(need=sum(1 for it in items.values() if it['needs_past']))
    for s in sessions:
        shown, prev = 0, None
        for e in s['exchanges']:
            typed = not e['prompt'].startswith('<command') and not e['prompt'].startswith('<local-command')
            if not s['worker'] and typed:
                pick = choose(st, s, e, prev, shown)
                if pick:
                    shown += 1
                    judge(items, e['uuid'], pick[0], pick[1], res)
            prev = e
        st['done'].append(s)
        for e in s['exchanges']:
            st['n'] += 1
            for t in terms(e['prompt'] + ' ' + '\n'.join(e['assistant'])):
                st['df'][t] += 1
    return res


def idf(st, t):
    return math.log((st['n'] + 1) / (st['df'].get(t, 0) + 0.5))


def words_idea(weight, need, recent=None, once=False, min_shared=2):
    """Ideas 2 and 7: outcome facts selected by the prompt's rare words (recent: last R sessions with one)."""
    def choose(st, s, e, prev, shown):
        if once and shown:
            return None
        pool = [d for d in st['done'] if not d['worker'] and any(x['outcome'] for x in d['exchanges'])]
        if recent:
            pool = pool[-recent:]
        q, best = terms(e['prompt']), None
        for d in pool:
            for x in d['exchanges']:
                if not x['outcome']:
                    continue
                shared = [t for t in q & terms(x['tail']) if idf(st, t) >= need]
                sc = sum(idf(st, t) for t in shared)
                if len(shared) >= min_shared and sc >= weight and (not best or sc > best[0]):
                    best = (sc, d['id'], x['uuid'])
        return best and best[1:]
    return choose


def lookup_idea():
    """Idea 3: a not-found path in the exchange before the prompt, named elsewhere by an earlier session."""
    def choose(st, s, e, prev, shown):
        if not prev:
            return None
        for f in prev['fails']:
            for m in PATH.findall(f):
                b = m.rstrip('/').split('/')[-1].lower()
                if len(b) < 4:
                    continue
                for d in reversed(st['done']):
                    for x in d['exchanges']:
                        if any(p.startswith('/') and p.rstrip('/').split('/')[-1].lower() == b and p.rstrip('/') != m.rstrip('/') for t in x['text'] for p in PATH.findall(t)):
                            return d['id'], x['uuid']
        return None
    return choose


def files_idea(k, min_idf):
    """Idea 6: files read or edited so far that one earlier session wrote (once per session)."""
    def choose(st, s, e, prev, shown):
        if shown:
            return None
        wdf = Counter(b for d in st['done'] for b in set().union(*[x['written'] for x in d['exchanges']] or [set()]))
        n = len(st['done'])
        w = lambda b: math.log((n + 1) / (wdf.get(b, 0) + 0.5))
        cur, best = {b for b in e['before'] if w(b) >= min_idf}, None
        for d in st['done']:
            ov = cur & set().union(*[x['written'] for x in d['exchanges']] or [set()])
            if len(ov) >= k and (not best or sum(map(w, ov)) > best[0]):
                best = (sum(map(w, ov)), d['id'], None)
        return best and best[1:]
    return choose


def precision(rs):
    r, w = sum(x['right'] for x in rs), sum(x['wrong'] for x in rs)
    return (r / (r + w) if r + w else 0.0), r, w


def leave_one_out(name, grid, make):
    results = {(g, p): simulate(p, make(*g)) for g in grid for p in PROJECTS}
    print(f'\n{name}')
    for held in PROJECTS:
        train = [p for p in PROJECTS if p != held]
        g = max(grid, key=lambda g: (precision([results[(g, p)] for p in train])[0], sum(results[(g, p)]['hit'] for p in train)))
        h = results[(g, held)]
        pt = precision([results[(g, p)] for p in train])
        print(f'  held out {held}: chosen {g} (training precision {pt[1]}/{pt[1] + pt[2]}); there: '
              f"need {h['need']}, hit {h['hit']}, right {h['right']}, wrong {h['wrong']}, unjudged {h['unjudged']}")


def fixed(name, make):
    print(f'\n{name}')
    for p in PROJECTS:
        h = simulate(p, make())
        print(f"  {p}: need {h['need']}, hit {h['hit']}, right {h['right']}, wrong {h['wrong']}, unjudged {h['unjudged']}")


def recap():
    """Idea 4: a SessionStart recap of the last main session whose end reports an outcome."""
    print('\n4. recap of the last session with an outcome, at SessionStart')
    for p in PROJECTS:
        items, sessions = load(p)
        last, recaps, served, covered = None, 0, set(), 0
        for s in sessions:
            typed = [e for e in s['exchanges'] if not e['prompt'].startswith('<')]
            if not s['worker'] and typed and last:
                recaps += 1
                for e in typed:
                    it = items.get(e['uuid'])
                    if it and it['needs_past'] and any(x['session'] == last for x in it['sources']):
                        covered += 1
                        served.add(s['id'])
            if not s['worker'] and any(e['outcome'] for e in s['exchanges']):
                last = s['id']
        need = sum(1 for it in items.values() if it['needs_past'])
        print(f'  {p}: prompts needing the past whose source it holds {covered} of {need}; recaps {recaps}, of which served such a prompt {len(served)}')


def judged_candidates():
    """The reviewers' judged candidates: do W ones hold more of the prompt's rare words than N ones?"""
    print('\njudged candidates: idf-weighted share of the prompt\'s 8 rarest words held (W vs N), and same request again')
    share, again = {'W': [], 'N': []}, Counter()
    for p in PROJECTS:
        items, sessions = load(p)
        by = {e['uuid']: e for s in sessions for e in s['exchanges']}
        docs = [terms(e['prompt'] + ' ' + '\n'.join(e['assistant'])) for e in by.values()]
        df = Counter(t for d in docs for t in d)
        w = lambda t: math.log((len(docs) + 1) / (df.get(t, 0) + 0.5))
        for it in items.values():
            q = by.get(it['uuid'])
            if not q:
                continue
            top = sorted(terms(q['prompt']), key=lambda t: -w(t))[:8]
            for c in it['judged_candidates']:
                x = by.get(c['uuid'])
                if not x:
                    continue
                held = terms(x['prompt'] + ' ' + '\n'.join(x['assistant']))
                share[c['verdict']].append(sum(w(t) for t in top if t in held) / (sum(w(t) for t in top) or 1))
                sh = lambda t: {tuple(z) for z in zip(*[re.findall(r'\w+', t.lower())[i:] for i in range(4)])}
                a, b = sh(q['prompt']), sh(x['prompt'])
                if a and b and len(a & b) / min(len(a), len(b)) >= 0.5:
                    again[c['verdict']] += 1
    for v in 'WN':
        print(f'  {v}: {len(share[v])} candidates, mean share {sum(share[v]) / max(1, len(share[v])):.2f}; same request again (>= 50% of 4-word shingles) {again[v]}')


# The person says the past holds something ("we added earlier", "already pushed", "existing").
PAST_CUE = re.compile(r"\b(earlier|before|already|previous(ly)?|last (time|session)|we (added|did|made|built|had|implemented|pushed|wrote)|existing|where (we|we're|were) (at|left)|continue|again|you were working on|as before|remember)\b", re.I)


def past_cue():
    """Idea 8: a prompt that refers to past work, against the gold's needs_past (an upper bound on precision)."""
    print('\n8. the prompt refers to past work (cue words): judged prompts with the cue, needing the past or not')
    for p in PROJECTS:
        items, sessions = load(p)
        by = {e['uuid']: e for s in sessions for e in s['exchanges']}
        c = Counter()
        for it in items.values():
            t = by[it['uuid']]['prompt'] if it['uuid'] in by else it['prompt']
            c[(bool(PAST_CUE.search(t[:2000])), it['needs_past'])] += 1
        print(f'  {p}: with the cue {c[(True, True)]} need / {c[(True, False)]} do not; without it {c[(False, True)]} need / {c[(False, False)]} do not')


if __name__ == '__main__':
    past_cue()
    judged_candidates()
    leave_one_out('2. outcome facts by the prompt\'s rare words (weight, idf)', [(t, n) for t in (8, 12, 16, 20, 24) for n in (2, 3, 4, 5)], lambda t, n: words_idea(t, n))
    fixed('3. a failed lookup in the exchange before, named elsewhere by an earlier session', lookup_idea)
    recap()
    leave_one_out('6. files touched that an earlier session wrote (k, idf)', [(k, m) for k in (1, 2, 3) for m in (1, 2, 3)], files_idea)
    leave_one_out('7. recent sessions only (R, idf, min shared, once)', [(r, n, m, o) for r in (1, 2, 3) for n in (2, 3, 4) for m in (1, 2) for o in (True, False)],
                  lambda r, n, m, o: words_idea(0, n, recent=r, once=o, min_shared=m))
