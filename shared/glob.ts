/**
 * A tiny glob matcher for cwd and path patterns (no dependencies; the hook uses it).
 * `**` matches any run of characters including `/`, `*` any run without `/`, `?` one
 * character; a leading `~/` means the user's home. Everything else is literal.
 */
import { userHome } from './paths.js';

const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  let g = glob.startsWith('~/') ? userHome() + glob.slice(1) : glob;
  g = g.replace(/\/+$/, '') || '/';
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        // `/**` also matches the directory itself; `**/` also matches nothing.
        if (g[i + 2] === '/') { re += '(?:.*/)?'; i += 2; }
        else { re += '.*'; i += 1; }
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  re = re.replace(/\/\.\*$/, '(?:/.*)?');
  const out = new RegExp(`^${re}$`);
  cache.set(glob, out);
  return out;
}

export function globMatch(glob: string, path: string): boolean {
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return globToRegExp(glob).test(p);
}

export function anyGlobMatch(globs: readonly string[], path: string): boolean {
  return globs.some((g) => globMatch(g, path));
}
