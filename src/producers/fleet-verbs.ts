import * as z from 'zod/mini';
import type {Ledger} from '../ledger/open-ledger.ts';
import {acknowledgeEntry} from '../ledger/queue.ts';
import {stopTask, type StopResult} from './stop.ts';

/** How a host answered a fleet request; recorded as `fleet.request_handled` and shipped back. */
export type VerbOutcome = {readonly outcome: 'done' | 'refused' | 'failed'; readonly message: string};

/** What a verb is carried out on: this host's ledger and the task the request names. */
type VerbContext = {readonly ledger: Ledger; readonly taskId: string};

type Verb<S extends z.ZodMiniType> = {
	/** The request's arguments, validated before anything runs. */
	readonly args: S;
	readonly run: (context: VerbContext, args: z.infer<S>) => Promise<VerbOutcome>;
};

const verb = <S extends z.ZodMiniType>(args: S, run: Verb<S>['run']): Verb<S> => ({args, run});

function fromStop(result: StopResult): VerbOutcome {
	return {outcome: result.outcome === 'stopped' ? 'done' : 'refused', message: result.message};
}

/**
 * What a fleet board may ask a host to do, each carried out through the same function as the
 * board's own key on that host. Adding a verb is one entry here (and its key on the board).
 */
export const FLEET_VERBS = {
	stop: verb(z.object({graceMs: z.optional(z.number())}), async ({ledger, taskId}, args) =>
		fromStop(await stopTask(ledger, taskId, {source: 'fleet', ...(args.graceMs === undefined ? {} : {graceMs: args.graceMs})})),
	),
	acknowledge: verb(z.object({signalAt: z.number()}), async ({ledger, taskId}, args) => {
		acknowledgeEntry(ledger, taskId, args.signalAt, Date.now(), 'fleet');
		return {outcome: 'done', message: `acknowledged ${taskId}`};
	}),
} as const;

/** A verb a fleet board can request. */
export type FleetVerb = keyof typeof FLEET_VERBS;

/** Whether `name` is a verb this build can carry out. */
export function isFleetVerb(name: string): name is FleetVerb {
	return Object.hasOwn(FLEET_VERBS, name);
}

/**
 * Carries out one request on this host: an unknown verb or bad arguments are refused with the
 * reason, a verb that throws is `failed` with its message; nothing here throws.
 */
export async function carryOut(
	ledger: Ledger,
	request: {readonly verb: string; readonly taskId: string; readonly args: unknown},
): Promise<VerbOutcome> {
	if (!isFleetVerb(request.verb)) {
		return {outcome: 'refused', message: `this host's controlroom does not know the verb '${request.verb}' (upgrade it)`};
	}
	const entry: Verb<z.ZodMiniType> = FLEET_VERBS[request.verb];
	const args = entry.args.safeParse(request.args);
	if (!args.success)
		return {outcome: 'refused', message: `${request.verb}: bad arguments (${args.error.message.split('\n')[0]})`};
	try {
		return await entry.run({ledger, taskId: request.taskId}, args.data);
	} catch (error) {
		return {outcome: 'failed', message: `${request.verb} failed: ${error instanceof Error ? error.message : String(error)}`};
	}
}
