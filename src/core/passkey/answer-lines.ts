import {EventType, type LedgerEvent} from '../events.ts';

/** A passkey answer on a task, as `explain` shows it (docs/passkeys.md). */
export type PasskeyAnswerView = {
	readonly seq: number;
	readonly at: number;
	readonly answer: string;
	readonly item: string;
	readonly passkey: string;
	readonly credentialId: string;
};

/** The passkey answers among a task's events, oldest first. */
export function passkeyAnswersOf(events: readonly LedgerEvent[]): PasskeyAnswerView[] {
	const views: PasskeyAnswerView[] = [];
	for (const event of events) {
		if (event.type !== EventType.passkeyAsserted) continue;
		const signed = event.data.signed as {item?: {kind?: unknown; id?: unknown}; answer?: unknown} | undefined;
		views.push({
			seq: event.seq,
			at: event.at,
			answer: typeof signed?.answer === 'string' ? signed.answer : '?',
			item: `${String(signed?.item?.kind ?? '?')} ${String(signed?.item?.id ?? '?')}`,
			passkey: event.data.name ?? 'passkey',
			credentialId: event.data.credentialId ?? '',
		});
	}
	return views;
}

/** `answer   allow decision d-3f2a…: approved by passkey "laptop" (credential 1a2b3c…, seq 42)`. */
export function passkeyAnswerLine(view: PasskeyAnswerView): string {
	const verb = view.answer === 'deny' || view.answer === 'reject' ? 'answered' : 'approved';
	return `answer   ${view.answer} ${view.item}: ${verb} by passkey "${view.passkey}" (credential ${view.credentialId.slice(0, 12)}…, seq ${view.seq})`;
}
