/**
 * The product's fixed vocabularies, defined once as runtime `as const` arrays with their
 * types derived: offer types, trigger kinds, channels and the hook events each channel
 * answers. Tiny and dependency-free: the hook bundle imports it. Printed labels for offer
 * types live in shared/offer-format.ts.
 */

/** Kinds of offer. */
export const OFFER_TYPES = ['past-fix', 'analogous', 'contradicts', 'tangent'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

/** What made the daemon look for an offer: drift, stall (across exchanges, or a loop inside
 *  a turn) or a tool error (at the prompt: new errors of the exchange; at the failure: the
 *  Past fix looked up by the error's signature). */
export const TRIGGER_KINDS = ['drift', 'stall', 'error'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/** Where an offer reaches the agent: at the prompt (UserPromptSubmit) or at a tool result
 *  (PostToolUseFailure / PostToolUse). Each has its own rollout state, budget and gaps. */
export const CHANNELS = ['prompt', 'tool'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Rollout states of a mode's channel. */
export const MODE_STATES = ['soak', 'live', 'off'] as const;
export type ModeState = (typeof MODE_STATES)[number];

/** Claude Code hook events the hook answers, and the channel each belongs to. */
export const HOOK_EVENTS = ['UserPromptSubmit', 'PostToolUseFailure', 'PostToolUse'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export const EVENT_CHANNEL: Readonly<Record<HookEvent, Channel>> = {
  UserPromptSubmit: 'prompt',
  PostToolUseFailure: 'tool',
  PostToolUse: 'tool',
};

export function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (list as readonly string[]).includes(v);
}
