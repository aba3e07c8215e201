import {decisionState, holdsHeadlessRun} from '../core/decisions/fold.ts';
import {readDecisions} from '../ledger/decisions.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import type {HeldDecisions, HeldQuestion} from '../producers/wrapper/hold-options.ts';
import {takeAnswer} from './decisions.ts';

/**
 * The decisions a held wrapper waits on, read from the ledger, and the one use of an answer,
 * through takeAnswer's transaction (docs/headless-holds.md).
 */
export function heldDecisionsOf(ledger: Ledger): HeldDecisions {
	return {
		waiting(taskId) {
			const now = Date.now();
			for (const decision of readDecisions(ledger.reader).values()) {
				const kind = decision.kind;
				if (decision.taskId !== taskId || !holdsHeadlessRun(decision) || kind === 'permission' || kind === 'effect') continue;
				const state = decisionState(decision, now);
				if (state !== 'open' && state !== 'answered') continue;
				const question: HeldQuestion = {
					decisionId: decision.id,
					kind,
					session: decision.session,
					toolUseId: decision.toolUseId,
					argsHash: decision.argsHash,
					isAnswered: state === 'answered',
				};
				return question;
			}
			return null;
		},
		take(decisionId, argsHash) {
			const taken = takeAnswer(ledger, decisionId, argsHash, 'wrapper');
			return taken === null ? null : {answer: taken.answer, reason: taken.reason, headroom: taken.headroom};
		},
	};
}
