/**
 * A file that holds settings, not code (pure): manifests, tool configs, env files. Its edit is
 * "a config value" (rule small-change, indexer/episodes.ts), and a fix that names it names the
 * project's configuration, not the files of one task (rule task-files, shared/task-files.ts).
 */
export const CONFIG_FILE_RE = /(?:^|[\\/])(?:package\.json|[\w.-]*config[\w.-]*\.json|\.env[\w.-]*|\.[\w-]+rc(?:\.(?:json|js|cjs|mjs|ya?ml))?|[\w.-]+\.config\.[cm]?[jt]s|[\w.-]+\.(?:ya?ml|toml|ini|cfg|conf|properties)|requirements[\w.-]*\.txt|Dockerfile|Makefile|go\.mod)$/i;
