/**
 * What a long store operation reports its progress to (files or chunks done of a total):
 * drawn by indexer/progress.ts, fed by the indexer and the team store's push (store/push.ts).
 */
export interface ProgressSink {
  start(totalFiles: number): void;
  update(filesDone: number, chunksAdded: number): void;
  done(): void;
}
