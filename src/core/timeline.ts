import {assertNever} from './assert-never.ts';
import {EventType, FOREIGN_EVENT, type EventDataOf, type LedgerEvent} from './events.ts';
import {describeArgs} from './effects/view.ts';
import {terminalSafe} from './terminal-text.ts';
import {COST_STATE} from './tokens.ts';

/** A timeline line: one event, or a run of heartbeats folded into one. */
export type TimelineEntry =
	| {readonly kind: 'event'; readonly event: LedgerEvent}
	| {readonly kind: 'heartbeats'; readonly count: number; readonly from: number; readonly to: number};

/** Folds consecutive heartbeats: they prove liveness, not progress. */
export function foldHeartbeats(events: readonly LedgerEvent[]): TimelineEntry[] {
	const entries: TimelineEntry[] = [];
	for (const event of events) {
		const last = entries.at(-1);
		if (event.type !== EventType.heartbeat) {
			entries.push({kind: 'event', event});
		} else if (last?.kind === 'heartbeats') {
			entries[entries.length - 1] = {...last, count: last.count + 1, to: event.at};
		} else {
			entries.push({kind: 'heartbeats', count: 1, from: event.at, to: event.at});
		}
	}
	return entries;
}

const MAX_SUMMARY = 100;

/** One line, made safe for a terminal first (a prompt's line breaks show as `\n`), then cut. */
function clip(text: string): string {
	const line = terminalSafe(text).replace(/\s+/g, ' ').trim();
	return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

function describeAgentEvent(data: EventDataOf<'agent.event'>): string {
	const name = data.event ?? 'event';
	const tool = data.toolName ?? null;
	const payload = (data.payload ?? {}) as Record<string, unknown>;
	const detail =
		typeof payload['prompt'] === 'string'
			? payload['prompt']
			: typeof payload['message'] === 'string'
				? payload['message']
				: typeof payload['reason'] === 'string'
					? payload['reason']
					: null;
	return clip([name, tool, detail ? `“${detail}”` : null].filter(Boolean).join(' '));
}

function describeVerdict(data: EventDataOf<'review.verdict'>): string {
	const verdict = data.verdict ?? 'unknown';
	if (verdict === 'FIX') return `FIX (${data.fixes?.length ?? 0}) ${data.fixes?.[0] ?? ''}`;
	if (verdict === 'INVALID') return `INVALID: ${data.reason ?? ''}`;
	if (verdict === 'STOPPED') return `STOPPED by ${data.signal ?? 'a signal'}`;
	return verdict;
}

/** `slot-1=early slot-2=late`: a settlement as the transcript prints it. */
const settlementText = (settlement: Readonly<Record<string, string>>): string =>
	Object.entries(settlement)
		.map(([item, option]) => `${item}=${option}`)
		.join(' ');

/** An offer and its answers, whole: the drill-down is where the transcript is audited, so it is not clipped. */
function describeOffer(data: EventDataOf<'mediation.offer'>): string {
	const answers = (data.answers ?? [])
		.map(answer =>
			answer.answer === 'veto'
				? `${answer.agent} vetoes ${(answer.options ?? []).map(vetoed => `${vetoed.item}=${vetoed.option}`).join(',')}`
				: `${answer.agent} ${answer.answer}s`,
		)
		.join('; ');
	return `offer #${data.n ?? '?'} (round ${data.round ?? '?'}) by ${data.by ?? '?'}: ${settlementText(data.offer ?? {})} → ${answers}`;
}

function describeMediation(data: EventDataOf<'mediation.concluded'>): string {
	if (data.outcome === 'agreement')
		return `agreement after ${data.offers ?? '?'} offers: ${settlementText(data.agreement ?? {})}`;
	const vetoes = (data.vetoes ?? []).map(veto => `${veto.agent} vetoed ${veto.item}=${veto.option}`);
	return [`walk-away after ${data.offers ?? '?'} offers; unsettled: ${(data.unsettled ?? []).join(', ')}`, ...vetoes].join('; ');
}

function describePlanRound(data: EventDataOf<'plan.review_round'>): string {
	const verdict = data.verdict ?? 'unknown';
	const detail = verdict === 'FIX' ? `${data.fixes?.length ?? 0} open: ${(data.fixes ?? []).join(' | ')}` : (data.reason ?? '');
	return clip(`plan review round ${data.round ?? '?'} (${data.reviewerTaskId ?? '?'}): ${verdict} ${detail}`);
}

const known = (value: number | string | null | undefined, fallback: string): string => (value ?? fallback).toString();

/** ` claims $123456.78 (its tokens could cost $0.0063 at most): not counted`, for a cost set aside as a claim. */
function claimWords(data: {readonly claimedCostUsd?: number | null; readonly costCeilingUsd?: number | null}): string {
	if (data.claimedCostUsd === undefined || data.claimedCostUsd === null) return '';
	const ceiling =
		data.costCeilingUsd === undefined || data.costCeilingUsd === null
			? 'the price table cannot bound it'
			: `its tokens could cost $${Number(data.costCeilingUsd.toPrecision(3))} at most`;
	return ` claims $${data.claimedCostUsd} (${ceiling}): not counted`;
}

/** One line of text describing an event, for the timeline; safe to print to a terminal. */
export function describeEvent(event: LedgerEvent): string {
	return terminalSafe(describeRaw(event));
}

/** A tokens report: the delta, and what it says about calls the transcript does not show. */
function describeTokens(data: EventDataOf<'task.tokens_reported'>): string {
	const delta = `tokens +${known(data.input, '?')} in, +${known(data.output, '?')} out`;
	if (data.from === COST_STATE) {
		const pending = data.pendingCompactions ?? 0;
		return `${delta} (Claude's own count of the session${pending > 0 ? `; ${pending} /compact since, not counted yet` : ''})`;
	}
	const compactions = data.compactions ?? 0;
	return compactions > 0 ? `${delta} (${compactions} /compact: its model calls are not in the transcript)` : delta;
}

/** A worktree's change in a few cells: `1 file +12`, `3 files +40 -7`, `no change`. */
export function changeSize(files: number, added: number, removed: number): string {
	if (files === 0) return 'no change';
	return `${files} file${files === 1 ? '' : 's'} +${added}${removed > 0 ? ` -${removed}` : ''}`;
}

function describeRaw(event: LedgerEvent): string {
	switch (event.type) {
		case EventType.registered:
			return clip(`registered ${event.data.title ?? ''} ${event.data.command ?? ''}`);
		case EventType.started: {
			const pid = event.data.pid ?? null;
			return pid === null ? 'started (pid unknown)' : `started pid ${pid}`;
		}
		case EventType.heartbeat:
			return 'heartbeat';
		case EventType.worktreeChanged:
			return `worktree change ${changeSize(event.data.files ?? 0, event.data.insertions ?? 0, event.data.deletions ?? 0)}`;
		case EventType.pidReported:
			return `pid ${known(event.data.pid, 'unknown')}`;
		case EventType.progressed:
			return `progress ${known(event.data.done, 'null')}/${known(event.data.total, 'null')}`;
		case EventType.planItem:
			return clip(
				`plan item ${event.data.subject ?? event.data.itemId ?? ''} ${event.data.isDone === true ? 'completed' : 'open'}`,
			);
		case EventType.tokensReported:
			return describeTokens(event.data);
		case EventType.costReported:
			return `cost reported by the agent: ${known(event.data.amount, 'unknown')} ${event.data.currency ?? 'USD'} (${event.data.scope ?? 'tree'})`;
		case EventType.sessionBefore:
			return typeof event.data.input === 'number' || typeof event.data.output === 'number'
				? `resumed a session that had spent ${known(event.data.input, '?')} in, ${known(event.data.output, '?')} out${typeof event.data.costUsd === 'number' ? `, $${event.data.costUsd}` : ''} before this run (Claude's own count); not counted here`
				: 'resumed a session: its earlier runs are not counted here';
		case EventType.exited: {
			const signal = event.data.signal ?? null;
			const left = event.data.leftRunning ?? [];
			const leftText =
				left.length > 0
					? `, left running: ${left.map(process => `${process.name ?? '?'} (pid ${known(process.pid, '?')})`).join(', ')}` +
						((event.data.leftRunningCount ?? left.length) > left.length
							? ` and ${(event.data.leftRunningCount ?? 0) - left.length} more`
							: '')
					: '';
			return clip(`${signal ? `exited by ${signal}` : `exited ${known(event.data.exitCode, 'unknown')}`}${leftText}`);
		}
		case EventType.failed:
			return clip(`failed: ${event.data.error ?? 'unknown error'}`);
		case EventType.stopped:
			return clip(`stopped ${event.data.signal ?? ''} ${event.data.reason ?? ''}`);
		case EventType.stopRequested:
			return `stop requested (${event.data.signal ?? 'SIGTERM'}, then SIGKILL after ${known(event.data.graceMs, '?')} ms)`;
		case EventType.lost:
			return clip(`lost: ${event.data.reason ?? 'process gone with no exit recorded'}`);
		case EventType.ended:
			return clip(`ended (${event.data.reason ?? 'no reason'}), exit code unknown`);
		case EventType.vanished:
			return clip(`vanished, outcome unknown: ${event.data.reason ?? 'the untracked process went away'}`);
		case EventType.merged:
			return clip(`merged into ${event.data.into ?? '?'}: ${event.data.reason ?? 'its process is tracked there'}`);
		case EventType.discovered:
			return clip(`found untracked pid ${known(event.data.pid, '?')} ${event.data.command ?? ''}`);
		case EventType.agentEvent:
			return describeAgentEvent(event.data);
		case EventType.needRaised:
			return clip(`needs you: ${event.data.message ?? ''}`);
		case EventType.ciReported:
			return clip(
				`CI ${event.data.status ?? '?'}: log ${known(event.data.logTotalLines, '?')} lines, last ${event.data.logLines?.length ?? 0} kept${event.data.url ? ` (${event.data.url})` : ''}`,
			);
		case EventType.reactionFired:
			return clip(
				`reaction ${event.data.rule ?? '?'} on ${event.data.on ?? '?'}: ${event.data.outcome ?? '?'}${event.data.reason ? ` (${event.data.reason})` : ''}`,
			);
		case EventType.reactionDelivery:
			return clip(
				`reaction ${event.data.rule ?? '?'} delivery ${known(event.data.attempt, '?')}: ${event.data.outcome ?? '?'}${event.data.detail ? ` (${event.data.detail})` : ''}`,
			);
		case EventType.acknowledged:
			return 'acknowledged';
		case EventType.seen:
			return clip(`seen by ${event.data.by ?? 'a person'}`);
		case EventType.claimTaken:
			return clip(`taken by ${event.data.holder ?? 'unknown'}`);
		case EventType.claimProgressed:
			return clip(`progress: ${event.data.note ?? ''}`);
		case EventType.claimHandedIn:
			return clip(
				event.data.acceptor
					? `handed in, waiting for ${event.data.acceptor}`
					: 'handed in, waiting until a person names its acceptor',
			);
		case EventType.claimAcceptorNamed:
			return clip(`acceptor named: ${event.data.acceptor ?? '?'} (by ${event.data.by ?? 'a person'})`);
		case EventType.evidenceLooked:
			return clip(
				`screenshot looked at by ${event.data.by ?? 'a person'}${event.data.line ? ` (line ${event.data.line})` : ''}: sha256 ${(event.data.sha256 ?? '?').slice(0, 12)}`,
			);
		case EventType.handoffWritten:
			return clip(
				`handoff written (${event.data.trigger ?? '?'}): ${event.data.path ?? '?'} sha256 ${(event.data.sha256 ?? '?').slice(0, 12)}`,
			);
		case EventType.handoffSkipped:
			return clip(`no handoff: ${event.data.reason ?? ''}`);
		case EventType.messageSent:
			return clip(
				`message ${event.data.messageId ?? '?'} from ${event.data.by ?? 'a person'}${event.data.from === 'reaction' ? ' (reaction)' : ''}: ${event.data.text ?? ''}`,
			);
		case EventType.messageDelivered:
			return clip(`message ${event.data.messageId ?? '?'} delivered (${event.data.how ?? '?'})`);
		case EventType.handoffTaken:
			return clip(`handoff taken by ${event.data.by ?? '?'} (${event.data.how ?? '?'}): ${event.data.path ?? '?'}`);
		case EventType.contractReady:
			return clip(`ready${event.data.acceptor ? `; ${event.data.acceptor} accepts it` : ''} (by ${event.data.by ?? 'a person'})`);
		case EventType.claimPassedBack:
			return clip(`passed back: ${event.data.reason ?? ''}`);
		case EventType.fleetRequestReceived:
			return clip(
				`fleet request #${known(event.data.requestId, '?')}: ${event.data.verb ?? '?'} from ${event.data.requestedBy ?? 'a fleet board'}`,
			);
		case EventType.fleetRequestHandled:
			return clip(
				`fleet request #${known(event.data.requestId, '?')} ${event.data.verb ?? '?'}: ${event.data.outcome ?? 'unknown'}${event.data.message ? ` — ${event.data.message}` : ''}`,
			);
		case EventType.outputKept:
			return `kept the end of stdout as the report (${known(event.data.bytes, '?')} bytes written)`;
		case EventType.reviewStarted: {
			const count = event.data.reviewers?.length ?? 0;
			return clip(`review ${event.data.reviewId ?? ''} started: ${count} reviewer${count === 1 ? '' : 's'}`);
		}
		case EventType.reviewPacketBuilt: {
			const trimmed = event.data.trimmed ?? [];
			return clip(
				`review packet, round ${known(event.data.round, '?')}: ${known(event.data.bytes, '?')} bytes` +
					(trimmed.length > 0 ? `, trimmed: ${trimmed.join(', ')}` : ''),
			);
		}
		case EventType.reviewVerdict:
			return clip(
				`round ${known(event.data.round, '?')}, reviewer ${known(event.data.reviewer, '?')}: ${describeVerdict(event.data)}`,
			);
		case EventType.reviewFixRound:
			return clip(
				`${event.data.fixes?.length ?? 0} fixes back to the worker: ${event.data.workerTaskId ?? '?'} ran again (${event.data.workerStatus ?? 'unknown'})`,
			);
		case EventType.reviewConcluded:
			return clip(
				event.data.outcome === 'approved'
					? `review approved after ${known(event.data.rounds, '?')} round(s)`
					: `review needs a person: ${event.data.reason ?? event.data.outcome ?? ''}`,
			);
		case EventType.workSentBack:
			return clip(
				`sent back by ${event.data.by ?? 'unknown'}: ${event.data.reason ?? ''}` +
					(event.data.rerunTaskId ? ` → ${event.data.rerunTaskId}` : event.data.claimReturned ? ' (claim free again)' : ''),
			);
		case EventType.workAccepted:
			return clip(
				`accepted by ${event.data.by ?? 'unknown'}${event.data.osUser && event.data.osUser !== event.data.by ? ` (OS user ${event.data.osUser})` : ''}`,
			);
		case EventType.passkeyEnrolled:
			return clip(
				`passkey "${event.data.name ?? '?'}" enrolled by ${event.data.by ?? 'a person'} (credential ${(event.data.credentialId ?? '').slice(0, 12)})`,
			);
		case EventType.passkeyAsserted: {
			const signed = event.data.signed as {item?: {kind?: string; id?: string}; answer?: string} | undefined;
			return clip(
				`${signed?.answer ?? '?'} ${signed?.item?.kind ?? '?'} ${signed?.item?.id ?? '?'} signed by passkey "${event.data.name ?? '?'}" (credential ${(event.data.credentialId ?? '').slice(0, 12)})`,
			);
		}
		case EventType.approvalsSet:
			return clip(
				`approvals policy set to ${event.data.policy ?? '?'} by ${event.data.by ?? 'a person'} (${event.data.how ?? '?'})`,
			);
		case EventType.workLineVerdict:
			return clip(
				`line ${event.data.line ?? '?'} ${event.data.verdict ?? '?'} (${event.data.by ?? 'unknown'})${event.data.reason ? `: ${event.data.reason}` : ''}`,
			);
		case EventType.gateRefused:
			return clip(
				`refused: an agent asked to ${event.data.verb ?? '?'} ${event.data.target ?? ''} (${event.data.reason ?? 'not a person'})`,
			);
		case EventType.contractDrafted: {
			const writer = event.data.writer;
			return clip(
				`${event.data.kind ?? 'contract'} "${event.data.title ?? ''}" written as a draft by ${writer?.client ?? 'unknown'}${writer?.owner ? ` for ${writer.owner}` : ''} (${writer?.via ?? '?'})`,
			);
		}
		case EventType.contractText:
			return `text kept (sha256 ${(event.data.digest ?? '').slice(0, 12)})`;
		case EventType.contractReadied:
			return clip(
				event.data.how === 'policy'
					? `ready at once: the token's policy, set by ${event.data.by ?? 'a person'}`
					: `marked ready by ${event.data.by ?? 'a person'}`,
			);
		case EventType.accessGranted:
			return clip(
				`access granted by ${event.data.by ?? 'a person'}: ${event.data.client ?? '?'} for ${event.data.owner ?? '?'} (${(event.data.scopes ?? []).join(' ')})`,
			);
		case EventType.accessRevoked:
			return clip(`access revoked by ${event.data.by ?? '?'}: ${event.data.reason ?? ''}`);
		case EventType.mediationOffer:
			return describeOffer(event.data);
		case EventType.mediationConcluded:
			return describeMediation(event.data);
		case EventType.planReviewRound:
			return describePlanRound(event.data);
		case EventType.planReviewConcluded:
			return clip(
				`plan review ${event.data.outcome ?? '?'} after ${known(event.data.rounds, '?')} round(s): ${event.data.reason ?? ''}`,
			);
		case EventType.disagreementOpened:
			return clip(`disagreement (${event.data.kind ?? '?'}) for a person: ${event.data.summary ?? ''}`);
		case EventType.orderOpened:
			return clip(
				`gateway opened the order for ${event.data.worker ?? 'unknown'}${event.data.parent ? ` (derived from ${event.data.parent})` : ''}, budget ${known(event.data.budgetCalls, 'unknown')} calls`,
			);
		case EventType.orderDerived:
			return clip(`derived order ${event.data.child ?? '?'} for ${event.data.worker ?? 'unknown'} (no staged tools)`);
		case EventType.orderApproved:
			return clip(
				`approved ${(event.data.ids ?? []).join(', ') || 'nothing'}${event.data.reconciled ? ' (report reconciled)' : ''}`,
			);
		case EventType.orderApprovalRefused:
			return clip(`approval refused, nothing ran: ${(event.data.mismatches ?? []).join('; ')}`);
		case EventType.orderSentBack:
			return clip(`sent back ${(event.data.ids ?? []).join(', ') || 'nothing held'}: ${event.data.reason ?? ''}`);
		case EventType.effectRead:
			return clip(`read ${event.data.id ?? '?'} passed through`);
		case EventType.effectHeld:
			// Whole, never clipped: what an approval would run is read here (docs/effects.md).
			return terminalSafe(
				`held ${event.data.id ?? '?'} for approval: ${event.data.upstream ?? '?'}/${event.data.tool ?? '?'} ${describeArgs(event.data.args ?? null)}`,
			);
		case EventType.effectRefused:
			return clip(
				`refused ${event.data.upstream ? `${event.data.upstream}/` : ''}${event.data.tool ?? '?'}: ${event.data.reason ?? ''}`,
			);
		case EventType.effectStarted:
			return clip(`started ${event.data.id ?? '?'} (sent upstream)`);
		case EventType.effectFinished:
			return clip(
				`finished ${event.data.id ?? '?'}${event.data.isError ? ` with an error${event.data.error ? `: ${event.data.error}` : ''}` : ''}`,
			);
		case EventType.effectOutcomeUnknown:
			return clip(`outcome unknown ${event.data.id ?? '?'}: ${event.data.reason ?? 'started, never finished'}`);
		case EventType.effectExpired:
			return clip(`expired ${event.data.id ?? '?'} (not approved in time)`);
		case EventType.decisionAsked:
			// Whole, never clipped: what an answer would allow is read here (docs/decisions.md).
			return terminalSafe(
				`asks ${event.data.decisionId ?? '?'} (${event.data.kind ?? '?'}): ${event.data.tool ?? '?'} ${describeArgs(event.data.args ?? null)}`,
			);
		case EventType.decisionAnswered:
			return clip(
				`${event.data.answer === 'allow' ? 'allowed' : 'denied'} ${event.data.decisionId ?? '?'} by ${event.data.by ?? 'a person'}${event.data.reason ? `: ${event.data.reason}` : ''}${event.data.headroom ? ` (+${event.data.headroom} tokens)` : ''}`,
			);
		case EventType.decisionUsed:
			return clip(`answer to ${event.data.decisionId ?? '?'} carried out`);
		case EventType.decisionWithdrawn:
			return clip(`${event.data.decisionId ?? '?'} no longer waiting: ${event.data.why ?? ''}`);
		case EventType.telemetryRequest:
			return clip(
				`telemetry: request ${event.data.requestId ?? '?'} ${event.data.model ?? ''} ${event.data.input ?? '?'} in / ${event.data.output ?? '?'} out${event.data.costUsd === undefined || event.data.costUsd === null ? '' : ` $${event.data.costUsd}`}${claimWords(event.data)}`,
			);
		case EventType.telemetryTool:
			return clip(
				`telemetry: ${event.data.event ?? 'tool'} ${event.data.toolName ?? '?'}${event.data.decision ? ` ${event.data.decision}` : ''}${event.data.decisionSource ? ` (${event.data.decisionSource})` : ''}${event.data.success === false ? ' failed' : ''}`,
			);
		case EventType.telemetryMetric:
			return clip(
				`telemetry: ${event.data.name ?? '?'} ${event.data.kind ?? ''} +${event.data.value ?? '?'} ${event.data.unit ?? ''}`,
			);
		case FOREIGN_EVENT:
			return clip(`${event.storedType} ${JSON.stringify(event.data)}`);
		default:
			return assertNever(event);
	}
}
