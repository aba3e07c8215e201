// zod/mini (same zod package, tree-shakable API): the hook bundles this file, and the classic API
// alone cost about 28 ms of the hook's start (measured; see docs/hooks.md).
import * as z from 'zod/mini';
import {en} from 'zod/locales';

z.config(en());

/** The agents we read hook payloads from. */
export const AGENT_SOURCES = ['claude', 'codex'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/**
 * A lifecycle hook payload (Claude Code, or Codex's Claude-shaped one). Only what we key on is
 * required; every other field is kept as sent.
 */
export const hookPayloadSchema = z.looseObject({
	session_id: z.string().check(z.minLength(1)),
	hook_event_name: z.string().check(z.minLength(1)),
	cwd: z.optional(z.string()),
	transcript_path: z.optional(z.string()),
});
export type HookPayload = z.infer<typeof hookPayloadSchema>;

/** Codex's `notify` program argument. */
export const notifyPayloadSchema = z.looseObject({
	type: z.string().check(z.minLength(1)),
	'thread-id': z.string().check(z.minLength(1)),
	'turn-id': z.optional(z.string()),
	cwd: z.optional(z.string()),
});
export type NotifyPayload = z.infer<typeof notifyPayloadSchema>;

/** One process of the hook's parent chain, as /proc tells it (field 22 of stat, and comm). */
export const ancestorSchema = z.looseObject({
	pid: z.number().check(z.int(), z.positive()),
	/** Clock ticks since boot (field 22 of /proc/PID/stat): with the PID, names one process for good. */
	startTime: z.number().check(z.int(), z.nonnegative()),
	name: z.string(),
});
export type Ancestor = z.infer<typeof ancestorSchema>;

/** How many parent levels the hook records: agent → shell → hook is common, a wrapper script adds one. */
export const ANCESTOR_LEVELS = 4;

/** The spool envelope: the hook writes it when the ledger is busy; `ingest` reads it too. */
export const spoolEnvelopeSchema = z.looseObject({
	at: z.iso.datetime({offset: true}),
	source: z.enum(AGENT_SOURCES),
	payload: z.unknown(),
	/** Written by the hook so two identical payloads in one millisecond stay two events. */
	id: z.optional(z.string()),
	/** The agent's PID as the hook saw it (CLAUDE_PID). */
	pid: z.optional(z.number().check(z.int(), z.positive())),
	/** The wrapper task this session runs under (CONTROLROOM_TASK_ID in the hook's environment). */
	wrapperTaskId: z.optional(z.string().check(z.minLength(1))),
	/** CLAUDE_CONFIG_DIR in the hook's environment: the folder Claude's transcripts are under. */
	configDir: z.optional(z.string().check(z.minLength(1))),
	/** The hook process's parent chain, nearest first, up to 4 levels. */
	ancestors: z.optional(z.array(ancestorSchema)),
	/** TMUX and TMUX_PANE in the hook's environment, as they were (docs/tmux.md). */
	tmux: z.optional(z.string()),
	tmuxPane: z.optional(z.string()),
});

/** The spool hook's header line (spool-hook.sh; docs/hooks.md): what the hook knew besides the payload. */
export const spoolHeaderSchema = z.looseObject({
	v: z.literal(1),
	source: z.enum(AGENT_SOURCES),
	/** Where the payload came from: stdin (hook events) or the last argument (Codex `notify`). */
	origin: z.optional(z.enum(['stdin', 'notify'])),
	/** When the hook ran; without it, the file's modification time (the kernel's, as the payload was written). */
	at: z.optional(z.iso.datetime({offset: true})),
	pid: z.optional(z.number().check(z.int(), z.positive())),
	wrapperTaskId: z.optional(z.string().check(z.minLength(1))),
	configDir: z.optional(z.string().check(z.minLength(1))),
	ancestors: z.optional(z.array(ancestorSchema)),
	tmux: z.optional(z.string()),
	tmuxPane: z.optional(z.string()),
});

/** Formats the first zod issue as `field: message`, naming the field. */
export function describeIssue(error: z.core.$ZodError): string {
	const issue = error.issues[0];
	if (!issue) return 'invalid';
	const field = issue.path.length > 0 ? issue.path.join('.') : 'payload';
	return `${field}: ${issue.message}`;
}
