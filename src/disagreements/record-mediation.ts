import {randomBytes} from 'node:crypto';
import type {Transcript} from '../core/mediation/engine.ts';
import {EventType, newEvent, type NewEvent} from '../core/events.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

const SOURCE = 'controlroom';

/**
 * Records a mediation in the ledger as a task of its own (role `mediator`): every offer with its
 * answers, the conclusion, and on a walk-away a disagreement for the queue naming what could not be
 * settled and who vetoed what. Only the transcript is written, so no weight or floor reaches the
 * ledger. The task ends done: the mediator did its work; an unsettled result waits in the queue.
 */
export function recordMediation(
	ledger: Ledger,
	transcript: Transcript,
	where: {readonly cwd: string; readonly now: number},
): string {
	const taskId = `m-${randomBytes(5).toString('hex')}`;
	const items = Object.keys(transcript.offers[0]?.offer ?? transcript.agreement ?? {}).length;
	const at = where.now;
	const envelope = {taskId, at, source: SOURCE};
	const events: NewEvent[] = [
		newEvent(
			EventType.registered,
			{title: `mediation: ${transcript.agents.join(' vs ')} over ${items} items`, role: 'mediator', cwd: where.cwd},
			envelope,
		),
		...transcript.offers.map(entry =>
			newEvent(
				EventType.mediationOffer,
				{
					n: entry.n,
					round: entry.round,
					by: entry.by,
					offer: {...entry.offer},
					answers: entry.answers.map(answer =>
						answer.answer === 'veto'
							? {agent: answer.agent, answer: 'veto', options: answer.options.map(option => ({...option}))}
							: {agent: answer.agent, answer: answer.answer},
					),
				},
				envelope,
			),
		),
		newEvent(
			EventType.mediationConcluded,
			{
				outcome: transcript.outcome,
				agreement: transcript.agreement ? {...transcript.agreement} : null,
				agents: [...transcript.agents],
				offers: transcript.offers.length,
				rounds: transcript.rounds,
				unsettled: [...transcript.unsettled],
				vetoes: transcript.vetoes.map(veto => ({...veto})),
			},
			envelope,
		),
	];
	if (transcript.outcome === 'walk-away') {
		events.push(
			newEvent(
				EventType.disagreementOpened,
				{
					kind: 'value',
					items: [...transcript.unsettled],
					vetoes: transcript.vetoes.map(veto => ({...veto})),
					agents: [...transcript.agents],
					summary: `${transcript.agents.join(' and ')} walked away over ${transcript.unsettled.join(', ')}`,
				},
				envelope,
			),
		);
	}
	events.push(
		newEvent(EventType.exited, {exitCode: 0, reason: transcript.outcome === 'agreement' ? 'agreement' : 'walk-away'}, envelope),
	);
	ledger.writer.append(events);
	return taskId;
}
