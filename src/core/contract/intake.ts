import {EventType, type EventOfType, type EventTypeName, type LedgerEvent} from '../events.ts';

// Contracts written through `serve` or an agent's `mcp` and kept in the ledger (docs/serve.md):
// their record folded from events, as a work order's is. Pure: the stores hand over the events.

/** A stored contract's id: `ct-` and 12 hex digits of the sha256 of who wrote it, where, and the text. */
export const STORED_CONTRACT_ID = /^ct-[0-9a-f]{12}$/;

/** Whether a `--contract` or `contract ready` argument names a stored contract rather than a file. */
export function isStoredContractId(value: string): boolean {
	return STORED_CONTRACT_ID.test(value);
}

/** Who wrote a stored contract: the client (an assistant, a token's label, an agent), the token's owner, the door. */
export type ContractWriter = {
	readonly client: string;
	readonly owner: string;
	/** serve (a connector or a script's token), mcp (an agent's stdio server), fleet (copied from another host). */
	readonly via: string;
	readonly grant: string | null;
	/** The host it was written on, when it came over the fleet. */
	readonly host: string | null;
};

/**
 * Where a stored contract is: a draft waits for a person; ready waits for a taker; taken is held;
 * handed in waits for its acceptor; accepted is done; passed back and rejected are free to take again.
 */
export type IntakeState = 'draft' | 'ready' | 'taken' | 'handed in' | 'accepted' | 'passed back' | 'rejected';

/** One stored contract as its events tell it. */
export type IntakeRecord = {
	readonly id: string;
	readonly kind: string | null;
	readonly title: string | null;
	readonly format: string | null;
	readonly digest: string | null;
	readonly repository: string | null;
	readonly writer: ContractWriter;
	readonly guesses: readonly string[];
	readonly warnings: readonly string[];
	readonly writtenAt: number;
	/** The ledger sequence of its latest event, for a queue entry and its acknowledgement. */
	readonly lastSeq: number;
	/** When its latest event happened. */
	readonly updatedAt: number;
	readonly state: IntakeState;
	/** Who marked it ready, and how (a person, or the token's policy); null while a draft. */
	readonly readied: {readonly by: string; readonly how: string; readonly at: number} | null;
	/** Its latest claim: the claim task, who holds (held) it, since when. */
	readonly claim: {readonly taskId: string; readonly holder: string; readonly at: number} | null;
	/** The latest hand-in: who it waits for. */
	readonly handIn: {readonly acceptor: string; readonly at: number} | null;
	/** The latest pass-back (or a person's send-back): who, why, when. */
	readonly passedBack: {readonly by: string; readonly reason: string; readonly at: number} | null;
	readonly acceptedBy: string | null;
	/** How many times it was taken. */
	readonly takes: number;
};

/** A stored contract on a board: its record, and on a fleet board the host whose ledger told the latest of it. */
export type BoardContract = IntakeRecord & {readonly host?: string};

/**
 * The pseudo-task a contract's own records (`contract.ready`) are kept under, keyed like its
 * claims (a file's contract key, a stored contract's id): no task row is made for it.
 */
export function contractRecordId(contractKey: string): string {
	return `contract-${contractKey}`;
}

/** The event types a stored contract's record is folded from. */
export const INTAKE_EVENT_TYPES = [
	EventType.contractDrafted,
	EventType.contractReady,
	EventType.contractReadied,
	EventType.claimTaken,
	EventType.claimHandedIn,
	EventType.claimPassedBack,
	EventType.workAccepted,
] as const satisfies readonly EventTypeName[];

type IntakeEvent = EventOfType<(typeof INTAKE_EVENT_TYPES)[number]>;

/** States a taker may take a contract in. */
const TAKEABLE: ReadonlySet<IntakeState> = new Set(['ready', 'passed back', 'rejected']);

/** Whether `pickup` (or `take`) may take it now. */
export function isTakeable(record: IntakeRecord): boolean {
	return TAKEABLE.has(record.state);
}

function drafted(event: EventOfType<'contract.drafted'>): IntakeRecord {
	const writer = event.data.writer;
	return {
		id: event.data.contractId ?? event.taskId,
		kind: event.data.kind ?? null,
		title: event.data.title ?? null,
		format: event.data.format ?? null,
		digest: event.data.digest ?? null,
		repository: event.data.repository ?? null,
		writer: {
			client: writer?.client ?? 'unknown',
			owner: writer?.owner ?? 'unknown',
			via: writer?.via ?? 'unknown',
			grant: writer?.grant ?? null,
			host: writer?.host ?? null,
		},
		guesses: event.data.guesses ?? [],
		warnings: event.data.warnings ?? [],
		writtenAt: event.at,
		lastSeq: event.seq,
		updatedAt: event.at,
		state: 'draft',
		readied: null,
		claim: null,
		handIn: null,
		passedBack: null,
		acceptedBy: null,
		takes: 0,
	};
}

function isIntakeEvent(event: LedgerEvent): event is IntakeEvent {
	return (INTAKE_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** A pass-back a person's send-back wrote (`sent back by NAME: ...`) returns the hand-in: rejected. */
function passBackState(reason: string): IntakeState {
	return reason.startsWith('sent back by ') ? 'rejected' : 'passed back';
}

function applyToRecord(record: IntakeRecord, event: IntakeEvent): IntakeRecord {
	switch (event.type) {
		case EventType.contractDrafted:
			return record;
		case EventType.contractReady:
		case EventType.contractReadied: {
			const how = event.type === EventType.contractReady ? 'person' : (event.data.how ?? 'person');
			const readied = {by: event.data.by ?? 'unknown', how, at: event.at};
			// Marked ready again after a pass-back: free for every taker, this host's pickup too.
			const isFree = record.state === 'draft' || TAKEABLE.has(record.state);
			return {...record, readied, state: isFree ? 'ready' : record.state};
		}
		case EventType.claimTaken:
			return {
				...record,
				state: 'taken',
				claim: {taskId: event.taskId, holder: event.data.holder ?? 'unknown', at: event.at},
				handIn: null,
				acceptedBy: null,
				takes: record.takes + 1,
			};
		case EventType.claimHandedIn:
			return {...record, state: 'handed in', handIn: {acceptor: event.data.acceptor ?? 'its acceptor', at: event.at}};
		case EventType.claimPassedBack: {
			const reason = event.data.reason ?? '';
			const by = event.data.actor ?? event.data.holder ?? 'unknown';
			return {...record, state: passBackState(reason), passedBack: {by, reason, at: event.at}};
		}
		case EventType.workAccepted:
			return {...record, state: 'accepted', acceptedBy: event.data.by ?? 'unknown'};
		default:
			return record;
	}
}

/**
 * Folds stored contracts from their events (oldest first): each contract's draft, its readiness,
 * and the claims taken on it (a claim's `contractKey` is the contract's id), handed in, passed
 * back, sent back or accepted. Claims of contract files are left out.
 */
export function foldIntake(events: readonly LedgerEvent[]): Map<string, IntakeRecord> {
	const records = new Map<string, IntakeRecord>();
	const contractOfClaim = new Map<string, string>();
	for (const event of events) {
		if (!isIntakeEvent(event)) continue;
		if (event.type === EventType.contractDrafted) {
			const record = drafted(event);
			if (!records.has(record.id)) records.set(record.id, record);
			continue;
		}
		let id: string | undefined;
		if (event.type === EventType.contractReadied) id = event.data.contractId ?? event.taskId;
		else if (event.type === EventType.contractReady) id = event.data.contractKey ?? undefined;
		else if (event.type === EventType.claimTaken) {
			id = event.data.contractKey ?? undefined;
			if (id !== undefined) contractOfClaim.set(event.taskId, id);
		} else id = contractOfClaim.get(event.taskId);
		const record = id === undefined ? undefined : records.get(id);
		if (record !== undefined)
			records.set(record.id, {
				...applyToRecord(record, event),
				lastSeq: event.seq,
				updatedAt: Math.max(record.updatedAt, event.at),
			});
	}
	return records;
}

/** Who wrote a stored contract, in a few words: `Claude for ana`. */
export function writerLine(writer: ContractWriter): string {
	return `${writer.client} for ${writer.owner}${writer.host ? ` on ${writer.host}` : ''}`;
}

/** What the human queue says of a draft: it waits for a person to make it ready (docs/serve.md). */
export function draftReason(record: IntakeRecord): string {
	return `draft "${record.title ?? ''}" from ${writerLine(record.writer)}: contract ready ${record.id}`;
}

/** A stored contract in snapshot JSON (docs/snapshot.md, "contracts"). */
export type SnapshotContract = {
	id: string;
	host: string | null;
	kind: string | null;
	title: string | null;
	state: IntakeState;
	repository: string | null;
	writer: ContractWriter;
	writtenAt: string;
	readiedBy: string | null;
	claim: string | null;
	holder: string | null;
	waitingFor: string | null;
	passedBack: {by: string; reason: string} | null;
	guesses: string[];
};

/**
 * The contracts a snapshot lists, oldest written first: every one not accepted, and those accepted
 * at or after `since` (all when null).
 */
export function snapshotContracts(
	records: Iterable<IntakeRecord>,
	since: number | null,
	host: string | null = null,
): SnapshotContract[] {
	return [...records]
		.filter(record => record.state !== 'accepted' || since === null || record.updatedAt >= since)
		.sort((a, b) => a.writtenAt - b.writtenAt || a.id.localeCompare(b.id))
		.map(record => ({
			id: record.id,
			host,
			kind: record.kind,
			title: record.title,
			state: record.state,
			repository: record.repository,
			writer: {...record.writer},
			writtenAt: new Date(record.writtenAt).toISOString(),
			readiedBy: record.readied?.by ?? null,
			claim: record.claim?.taskId ?? null,
			holder: record.claim?.holder ?? null,
			waitingFor: record.state === 'handed in' ? (record.handIn?.acceptor ?? null) : null,
			passedBack: record.passedBack ? {by: record.passedBack.by, reason: record.passedBack.reason} : null,
			guesses: [...record.guesses],
		}));
}
