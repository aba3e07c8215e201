import type {EventOfType} from './events.ts';

/** What a disagreement is about (docs/mediation.md): what will happen (a plan review), or what to want (a mediation). */
export type DisagreementKind = 'evidence' | 'value';

/** Who can never accept which option, and on which offer they said so (a mediation's veto). */
export type DisagreementVeto = {readonly agent: string; readonly item: string; readonly option: string};

/** One disagreement handed to a person: the queue's disagreements lane, snapshot's `disagreements`. */
export type DisagreementRecord = {
	/** The mediation's or plan review's task: its drill-down holds the transcript. */
	readonly taskId: string;
	readonly kind: DisagreementKind;
	/** What could not be settled: a mediation's items, a plan review's open points. */
	readonly items: readonly string[];
	readonly vetoes: readonly DisagreementVeto[];
	readonly agents: readonly string[];
	readonly at: number;
	readonly seq: number;
};

/** The disagreements as the ledger recorded them, oldest first. */
export function disagreementRecords(events: readonly EventOfType<'disagreement.opened'>[]): DisagreementRecord[] {
	return events.map(event => ({
		taskId: event.taskId,
		kind: event.data.kind === 'value' ? 'value' : 'evidence',
		items: event.data.items ?? [],
		vetoes: (event.data.vetoes ?? []).map(({agent, item, option}) => ({agent, item, option})),
		agents: event.data.agents ?? [],
		at: event.at,
		seq: event.seq,
	}));
}

const MAX_LISTED = 4;

function listed(values: readonly string[]): string {
	const shown = values.slice(0, MAX_LISTED).join(', ');
	return values.length > MAX_LISTED ? `${shown} +${values.length - MAX_LISTED} more` : shown;
}

/**
 * The line a person reads in the queue: the kind, what could not be settled and who vetoed what.
 * `value: unsettled slot-2, slot-8; planner-b vetoed slot-8=early`.
 */
export function disagreementReason(record: DisagreementRecord): string {
	const parts: string[] = [];
	if (record.kind === 'value') {
		parts.push(record.items.length > 0 ? `unsettled ${listed(record.items)}` : 'no settlement all could accept');
		const vetoes = record.vetoes.map(veto => `${veto.agent} vetoed ${veto.item}=${veto.option}`);
		if (vetoes.length > 0) parts.push(listed(vetoes));
	} else {
		const count = record.items.length;
		parts.push(count > 0 ? `${count} point${count === 1 ? '' : 's'} still open: ${listed(record.items)}` : 'still open');
	}
	return `${record.kind}: ${parts.join('; ')}`;
}
