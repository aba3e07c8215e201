import {afterEach, describe, expect, it} from 'vitest';
import {contractRecordId} from '../../src/core/contract/intake.ts';
import {EventType} from '../../src/core/events.ts';
import {HandoffError} from '../../src/handoff/claims.ts';
import {recordStoredReady, writeContract} from '../../src/handoff/intake.ts';
import {takeStoredContract} from '../../src/handoff/intake-claims.ts';
import {intakeRecord} from '../../src/ledger/contracts.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {chatTask} from '../helpers/chat-contracts.ts';
import {makeContractRepo} from '../helpers/contract-repo.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';

// A stored contract (written through serve or an agent's mcp) is made ready by the record every
// contract gets (docs/contracts.md, "Stored contracts"): `contract.ready` on `contract-ID`, through
// recordContractReady, so a contract that names no acceptor is accepted by the person who made it
// ready, exactly as `contract ready FILE` does for a file. (The person gate in front of it, a
// terminal and not an agent, is tested end to end in test/handoff/mcp-write.test.ts.)

const ledgers: Ledger[] = [];
afterEach(() => {
	for (const ledger of ledgers.splice(0)) ledger.close();
});

const person = (name: string) => ({name, osUser: 'ana', uid: 1000});

function draft(options: {acceptors: boolean; readyBy?: string}): {ledger: Ledger; id: string} {
	const repo = makeContractRepo();
	const ledger = openLedger(freshLedgerFile());
	ledgers.push(ledger);
	const text = chatTask(repo.head);
	const written = writeContract(ledger, {
		kind: 'task',
		text: options.acceptors ? text : text.replace('## Acceptors\n\n- engineer: lee\n', ''),
		repository: null,
		writer: {client: 'Chat Assistant', owner: 'ana', via: 'serve', grant: 'g-1', host: null},
		repositories: new Map([['shop', repo.dir]]),
		readyAtOnce: options.readyBy === undefined ? null : {by: options.readyBy},
		origin: 'serve',
	});
	expect(written.state).toBe(options.readyBy === undefined ? 'draft' : 'ready');
	return {ledger, id: written.id};
}

describe('contract ready ID', () => {
	it("records contract.ready keyed by the id and no record of its own; a contract naming no acceptor is then the person's to accept", () => {
		const {ledger, id} = draft({acceptors: false});
		const {record, ready} = recordStoredReady(ledger, id, person('ana'));
		expect(record).toMatchObject({state: 'ready', readied: {by: 'ana', how: 'person'}});
		expect(ready).toEqual({acceptors: ['ana'], isPersonAcceptor: true, claimTaskId: null});
		const [event] = ledger.reader.latestEventsOf(contractRecordId(id), [EventType.contractReady], 1);
		expect(event?.data).toMatchObject({contractKey: id, contract: id, acceptor: 'ana', by: 'ana', osUser: 'ana'});
		expect(ledger.reader.eventsOfType([EventType.contractReadied])).toHaveLength(0);

		const actor = {ledger, source: 'cli' as const, identity: null};
		const taken = takeStoredContract(actor, id, 'pickup@box-1', new Map());
		expect(taken.acceptors).toEqual(['ana']);
		const [claim] = ledger.reader.latestEventsOf(taken.taskId, [EventType.claimTaken], 1);
		expect(claim?.data.acceptorNamedBy).toBe('ana');
		expect(intakeRecord(ledger.reader, id)?.state).toBe('taken');
	});

	it("keeps a contract's own acceptors, refuses it twice and refuses its operator as the acceptor", () => {
		const named = draft({acceptors: true});
		expect(recordStoredReady(named.ledger, named.id, person('ana')).ready).toMatchObject({
			acceptors: ['lee'],
			isPersonAcceptor: false,
		});
		expect(() => recordStoredReady(named.ledger, named.id, person('ana'))).toThrow(/is ready already \(marked by ana\)/);

		const nobody = draft({acceptors: false});
		// chatTask's operator is worker-1: whoever does the work cannot accept it.
		expect(() => recordStoredReady(nobody.ledger, nobody.id, person('worker-1'))).toThrow(HandoffError);
		expect(intakeRecord(nobody.ledger.reader, nobody.id)?.state).toBe('draft');
	});

	it('names the acceptor of a taken contract that names none and was ready without a person (a policy, another host), once', () => {
		const {ledger, id} = draft({acceptors: false, readyBy: 'ana'});
		const actor = {ledger, source: 'cli' as const, identity: null};
		const taken = takeStoredContract(actor, id, 'pickup@box-1', new Map());
		expect(taken.acceptors).toEqual([]);
		const {record, ready} = recordStoredReady(ledger, id, person('lee'));
		expect(record.state).toBe('taken');
		expect(ready).toEqual({acceptors: ['lee'], isPersonAcceptor: true, claimTaskId: taken.taskId});
		const [named] = ledger.reader.latestEventsOf(taken.taskId, [EventType.claimAcceptorNamed], 1);
		expect(named?.data).toMatchObject({acceptor: 'lee', by: 'lee'});
		expect(() => recordStoredReady(ledger, id, person('lee'))).toThrow(
			/is taken \(claim claim-ct-[0-9a-f]{12}-1\): nothing to make ready/,
		);

		const own = draft({acceptors: true, readyBy: 'ana'});
		takeStoredContract({ledger: own.ledger, source: 'cli', identity: null}, own.id, 'pickup@box-1', new Map());
		expect(() => recordStoredReady(own.ledger, own.id, person('ana'))).toThrow(/nothing to make ready/);
	});
});
