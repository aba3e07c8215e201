import {z} from 'zod';

/** The agents we read hook payloads from. */
export const AGENT_SOURCES = ['claude', 'codex'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/**
 * A lifecycle hook payload (Claude Code, or Codex's Claude-shaped one). Only what we key on is
 * required; every other field is kept as sent.
 */
export const hookPayloadSchema = z.looseObject({
	session_id: z.string().min(1),
	hook_event_name: z.string().min(1),
	cwd: z.string().optional(),
	transcript_path: z.string().optional(),
});
export type HookPayload = z.infer<typeof hookPayloadSchema>;

/** Codex's `notify` program argument. */
export const notifyPayloadSchema = z.looseObject({
	type: z.string().min(1),
	'thread-id': z.string().min(1),
	'turn-id': z.string().optional(),
	cwd: z.string().optional(),
});
export type NotifyPayload = z.infer<typeof notifyPayloadSchema>;

/** The spool envelope: the hook writes it when the ledger is busy; `ingest` reads it too. */
export const spoolEnvelopeSchema = z.looseObject({
	at: z.iso.datetime({offset: true}),
	source: z.enum(AGENT_SOURCES),
	payload: z.unknown(),
	/** Written by the hook so two identical payloads in one millisecond stay two events. */
	id: z.string().optional(),
	/** The agent's PID as the hook saw it (CLAUDE_PID). */
	pid: z.number().int().positive().optional(),
});
export type SpoolEnvelope = z.infer<typeof spoolEnvelopeSchema>;

/** Formats the first zod issue as `field: message`, naming the field. */
export function describeIssue(error: z.ZodError): string {
	const issue = error.issues[0];
	if (!issue) return 'invalid';
	const field = issue.path.length > 0 ? issue.path.join('.') : 'payload';
	return `${field}: ${issue.message}`;
}
