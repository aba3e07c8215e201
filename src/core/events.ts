import * as z from 'zod/mini';

const text = z.optional(z.nullable(z.string()));
const count = z.optional(z.nullable(z.number()));
const anything = z.optional(z.unknown());
const vetoSchema = z.looseObject({agent: z.string(), item: z.string(), option: z.string(), offer: count});
/** The tmux pane an agent runs in, from its TMUX and TMUX_PANE (src/core/tmux.ts, docs/tmux.md). */
const tmuxPane = z.optional(z.nullable(z.looseObject({socket: text, serverPid: count, session: text, pane: text})));

/**
 * One event type: the name the ledger stores, and its data's fields (a loose object, see below).
 * The object schema is built on first use, not at load: every command loads this module, and most
 * read only a few of the types (docs/board.md, "How it stays live").
 */
function declare<const Type extends string, Shape extends z.core.$ZodLooseShape>(type: Type, shape: Shape) {
	const build = () => z.looseObject(shape);
	let data: ReturnType<typeof build> | undefined;
	return {
		type,
		get data() {
			data ??= build();
			return data;
		},
	};
}

/**
 * Every event type, declared once (docs/ledger.md, "Event types"): the name code writes
 * (`EventType.started`), the type the ledger stores (dotted, past tense), and what its data
 * carries. The constants, the union of events, the parser and the projection's exhaustive switches
 * all come from here. Every field is optional (a ledger written by an older build may lack it) and
 * objects are loose (a producer may add fields; they are kept as written).
 */
const DECLARED = {
	registered: declare('task.registered', {
		title: text,
		/** The task's source, when it is not the event's (a helper registered by its parent's hook). */
		source: text,
		role: text,
		cwd: text,
		parentId: text,
		sessionId: text,
		budget: count,
		/** What the budget counts of a resumed session: `run` (this run's tree) or `session` (docs/tree-and-cost.md). */
		budgetCovers: text,
		steps: count,
		stallSeconds: count,
		command: text,
		/** The command as given, before a contract was put into it: what a re-run starts again. */
		argv: z.optional(z.nullable(z.array(z.string()))),
		/** The contract file a run was given (absolute path). */
		contract: text,
		/**
		 * The contract's sha256 and text as checked when the run started: its review and re-runs read
		 * this snapshot, never the file the worker could have changed (docs/contracts.md).
		 */
		contractDigest: text,
		contractText: text,
		/** The brief file a re-run was given (the original brief plus the fixes). */
		brief: text,
		/** `git rev-parse HEAD` in the task's folder when it started: where its diff begins. */
		baseRevision: text,
		/** The task this run does again (a fix round or a send-back). */
		rerunOf: text,
		/** The trace this run belongs to (32 hex) and the span that parents its own, as `run` passed them in TRACEPARENT (docs/otel.md). */
		traceId: text,
		parentSpanId: text,
		/** The strong mode: the OS user (and uid) the agent ran as, not the wrapper's (docs/security.md). */
		runAsUser: text,
		runAsUid: count,
		agent: text,
		wrapperPid: count,
		wrapperStartTime: count,
		slot: count,
		/** Where the wrapper keeps the run's output (bounded), for the board's log view. */
		output: text,
		/** A held Claude run (docs/headless-holds.md): its command line as run, and how it is held; what `run --resume` carries on. */
		hold: z.optional(
			z.nullable(
				z.looseObject({
					args: z.optional(z.array(z.string())),
					onDeny: text,
					onBudget: text,
					isHeadless: z.optional(z.boolean()),
					isClaude: z.optional(z.boolean()),
				}),
			),
		),
		/** The tmux pane the wrapper (and so its agent) runs in; absent outside tmux. */
		tmux: tmuxPane,
		/** `run --worktree`: the run's own git worktree and branch, the commit it started from, the main checkout (docs/wrapper.md). */
		worktree: z.optional(z.nullable(z.looseObject({path: text, branch: text, base: text, repository: text, from: text}))),
	}),
	started: declare('task.started', {
		pid: count,
		pgid: count,
		startTime: count,
		wrapperPid: count,
		wrapperStartTime: count,
		/** How a hook found the PID: `CLAUDE_PID`, or `parent process` (the agent among the hook's parents). */
		pidFrom: text,
	}),
	/** The wrapper's child lives; `outputAt`: when the child last wrote output (the agent's own sign of life), if it has. */
	heartbeat: declare('task.heartbeat', {outputAt: count}),
	/** `run --worktree`: the change on the run's branch against its start, measured by its wrapper (docs/wrapper.md). */
	worktreeChanged: declare('task.worktree_changed', {
		files: count,
		/** Lines added and removed over every file (git's words: insertions, deletions). */
		insertions: count,
		deletions: count,
		/** Per file, the first 50 (`more`: how many beyond); `added`/`removed` null for a binary file. */
		stat: z.optional(z.nullable(z.array(z.looseObject({path: text, added: count, removed: count})))),
		more: count,
	}),
	pidReported: declare('task.pid_reported', {pid: count, startTime: count}),
	progressed: declare('task.progressed', {done: count, total: count, from: text}),
	planItem: declare('task.plan_item', {itemId: text, isDone: z.optional(z.boolean()), subject: text, from: text}),
	tokensReported: declare('task.tokens_reported', {
		input: count,
		output: count,
		threadId: text,
		cumulative: z.optional(z.nullable(z.looseObject({input: count, output: count}))),
		from: text,
		transcript: text,
		/** `/compact` runs in this span of the transcript: model calls its lines do not show (docs/hooks.md). */
		compactions: count,
		/** On a `cost-state` settlement: `/compact` runs after Claude's own count, still uncounted. */
		pendingCompactions: count,
		/** The same answers per model and price tier (src/core/spend.ts), read back with `usageByModelOf`. */
		byModel: anything,
	}),
	/**
	 * The agent's own figure for what its run cost (a wrapped `claude -p --output-format json`'s
	 * `total_cost_usd`): it covers the whole tree, sub-agents included (docs/tree-and-cost.md).
	 */
	costReported: declare('task.cost_reported', {amount: count, currency: text, scope: text, from: text, models: anything}),
	/**
	 * A run that resumed a Claude session: what the session had spent before it, by Claude's own
	 * count (the last `cost-state` line before the run's first line), and whether the read reached
	 * the run's own lines (docs/tree-and-cost.md, "Resumed sessions").
	 */
	sessionBefore: declare('task.session_before', {
		transcript: text,
		input: count,
		output: count,
		costUsd: count,
		reachedRun: z.optional(z.nullable(z.boolean())),
	}),
	exited: declare('task.exited', {
		exitCode: count,
		signal: text,
		reason: text,
		/** Processes of the child's group still alive when it exited (the first 20), and how many in all. */
		leftRunning: z.optional(z.array(z.looseObject({pid: count, name: text}))),
		leftRunningCount: count,
	}),
	failed: declare('task.failed', {error: text, exitCode: count}),
	stopped: declare('task.stopped', {
		signal: text,
		reason: text,
		exitCode: count,
		wrapperExit: count,
		escalated: z.optional(z.boolean()),
		/** The processes the stop ended, each confirmed gone. */
		pids: z.optional(z.array(z.number())),
	}),
	/** `controlroom stop` asked for the task to stop; `task.stopped` follows once its processes are gone. */
	stopRequested: declare('task.stop_requested', {
		signal: text,
		graceMs: count,
		pgid: count,
		/** Every process of the agent's tree the stop signals (docs/wrapper.md, "Stop"). */
		pids: z.optional(z.array(z.number())),
	}),
	/** `parentId`: a helper cut short when its session's process ended names that session. */
	lost: declare('task.lost', {reason: text, pid: count, parentId: text}),
	ended: declare('task.ended', {reason: text}),
	/** An untracked process went away: it was never tracked work, so how it ended is unknown. */
	vanished: declare('task.vanished', {reason: text, pid: count}),
	/** An untracked row's process is now tracked by another task (`into`): the same work, shown once, there. */
	merged: declare('task.merged', {reason: text, into: text, pid: count}),
	discovered: declare('task.discovered', {pid: count, name: text, command: text, cwd: text, startTime: count}),
	agentEvent: declare('agent.event', {
		/** The agent's own event name (SessionStart, Stop, turn.failed, agent-turn-complete, ...). */
		event: text,
		sessionId: text,
		threadId: text,
		cwd: text,
		/** The agent's PID, its start time and how the hook found it (see task.started). */
		pid: count,
		startTime: count,
		pidFrom: text,
		toolName: text,
		titleHint: text,
		parentId: text,
		/** CLAUDE_CONFIG_DIR as the agent's hook saw it: the folder its transcripts must be under. */
		configDir: text,
		/** The tmux pane the agent runs in, as its hook saw it; absent outside tmux (docs/tmux.md). */
		tmux: tmuxPane,
		/** The payload as the agent sent it, long strings cut. */
		payload: anything,
	}),
	/**
	 * A CI run's result reported for a task (`controlroom ci report`, docs/reactions.md): the end of
	 * its log as plain lines (escape codes taken out), how long the log was, where it came from.
	 */
	ciReported: declare('ci.reported', {
		status: text,
		logLines: z.optional(z.array(z.string())),
		logTotalLines: count,
		logBytes: count,
		log: text,
		url: text,
	}),
	/**
	 * A reaction rule fired (docs/reactions.md): which rule, on which trigger (`trigger`, its key;
	 * `triggerSeq`, the event), the action and what came of it (`outcome`: send, skip, escalate,
	 * notify, policy), why, and the message a send carries. Never an approval.
	 */
	reactionFired: declare('reaction.fired', {
		rule: text,
		on: text,
		action: text,
		outcome: text,
		reason: text,
		trigger: text,
		triggerSeq: count,
		/** When the trigger happened (the retry window is measured between triggers). */
		triggerAt: count,
		message: text,
		/** The rules fired before this one in a chain of firings (a firing's own events trigger rules too). */
		chain: z.optional(z.array(z.string())),
		retries: count,
	}),
	/** One delivery attempt of a send firing (`firedSeq`): attempting, then delivered or failed. */
	reactionDelivery: declare('reaction.delivery', {rule: text, firedSeq: count, attempt: count, outcome: text, detail: text}),
	/** `actor`: who raised it (an MCP worker, a person), where known. */
	needRaised: declare('need.raised', {message: text, kind: text, lane: text, actor: text}),
	acknowledged: declare('queue.acknowledged', {signalAt: count}),
	/** A person looked at a finished task on the board (`by`: who; docs/tmux.md, "Seen and unseen"). */
	seen: declare('task.seen', {by: text}),
	claimTaken: declare('claim.taken', {
		contract: text,
		contractKey: text,
		kind: text,
		holder: text,
		/** Who took it: the worker itself, or a person who took it for the holder. */
		actor: text,
		passedBack: anything,
		checks: z.optional(z.array(z.string())),
		/** Role → person: who accepts (a claim recorded before acceptors had duties and lines has only this). */
		acceptors: z.optional(z.record(z.string(), z.string())),
		/** Name → duty and the acceptance lines they accept (null: every line), docs/contracts.md "Acceptors". */
		acceptorTerms: z.optional(
			z.record(z.string(), z.looseObject({duty: text, lines: z.optional(z.nullable(z.array(z.number())))})),
		),
		/** Who named the acceptor when the contract names none: a person's `take --for` or `contract ready`. */
		acceptorNamedBy: text,
		/** The person who handed the contract over (`take --for`): a fresh start for the pass-back limit. */
		handedOverBy: text,
		/** How long the holder keeps it before it goes to Needs you (docs/contracts.md, "Caps"); absent in older ledgers. */
		timeLimitSeconds: count,
		operator: text,
		/** The acceptance lines (from 1) whose evidence is a screenshot a person marks looked at. */
		screenshots: z.optional(z.array(z.number())),
		/** The receiver's policy the claim was taken under (docs/contracts.md); its hand-in is judged by it. */
		policy: z.optional(z.array(z.string())),
		/** The contract's sha256 and text as checked at the take (as for a run's `task.registered`). */
		contractDigest: text,
		contractText: text,
		/** A stored contract's checkout on the taking host (its repository through repositories.json). */
		checkout: text,
		/** The tripwires run before the take, each a wrapped task (docs/contracts.md, "Tripwires"). */
		tripwires: anything,
	}),
	/** A person named who accepts a claim whose contract names nobody (`contract ready FILE` after the take). */
	claimAcceptorNamed: declare('claim.acceptor_named', {acceptor: text, by: text}),
	/** On every claim verb: `holder` who held the claim, `actor` who acted (absent in ledgers written before it was recorded). */
	claimProgressed: declare('claim.progressed', {note: text, holder: text, actor: text}),
	claimHandedIn: declare('claim.handed_in', {
		/** Who accepts it; null while nobody is named (the hand-in waits until a person names one). */
		acceptor: text,
		evidenceFile: text,
		evidence: anything,
		holder: text,
		actor: text,
		/** Files the change touched outside the contract's scope, each with why (docs/contracts.md, "Scope against the change"). */
		outsideScope: anything,
		/** Why the change was not compared with the scope (no base revision, review.commit not in the repository). */
		scopeNote: text,
		/** The tripwires run at the hand-in, each a wrapped task. */
		tripwires: anything,
	}),
	/**
	 * A handoff file was written into the task's repository for the next session (docs/handoffs.md):
	 * `path` absolute, `sha256` of its bytes, `trigger` `auto` (once per session, dedup key
	 * `handoff:TASK`) or `command` (`controlroom handoff`).
	 */
	handoffWritten: declare('handoff.written', {
		path: text,
		sha256: text,
		repository: text,
		revision: text,
		trigger: text,
		bytes: count,
	}),
	/** A session's automatic handoff was not written (it only read, or ran outside a repository): same dedup key, so it is decided once. */
	handoffSkipped: declare('handoff.skipped', {reason: text}),
	/** A session took a handoff as its context (dedup key `handoff-taken:SHA256`: one taker only). */
	handoffTaken: declare('handoff.taken', {path: text, sha256: text, handoffTask: text, by: text, how: text}),
	/**
	 * A word to a running agent (`controlroom send`, the board's m, a reaction's send; docs/messages.md):
	 * the text as given (raw; shown escaped), who sent it, and its id, which its delivery names.
	 */
	messageSent: declare('message.sent', {
		messageId: text,
		text: text,
		/** `person` or `reaction`. */
		from: text,
		/** The person (their name or OS user), or the reaction's rule. */
		by: text,
		osUser: text,
		uid: count,
	}),
	/** A message given to its agent (dedup key `message-delivered:ID`: given once): how (the Stop hook) and to which session. */
	messageDelivered: declare('message.delivered', {messageId: text, how: text, agent: text, session: text}),
	/** A person marked a hand-in's screenshot looked at (`controlroom looked`): by its content hash. */
	evidenceLooked: declare('evidence.looked', {sha256: text, line: count, file: text, by: text, osUser: text, uid: count}),
	/**
	 * A person said a contract is ready and who accepts it (`contract ready`), on `contract-KEY`: a
	 * contract's own record, no task. `acceptor` null when the contract names its acceptors itself.
	 */
	contractReady: declare('contract.ready', {
		contract: text,
		contractKey: text,
		contractDigest: text,
		acceptor: text,
		by: text,
		osUser: text,
		uid: count,
	}),
	claimPassedBack: declare('claim.passed_back', {reason: text, holder: text, actor: text}),
	/**
	 * A contract written through `serve` or an agent's `mcp` (docs/serve.md), stored as a draft until
	 * a person marks it ready. The event's task id is the contract's id (`ct-` + 12 hex), and the
	 * projection makes no task of it: src/core/contract/intake.ts folds it. Its text is in
	 * `contract.text`, so the reads that fold every contract at each board round never load texts.
	 */
	contractDrafted: declare('contract.drafted', {
		contractId: text,
		kind: text,
		title: text,
		format: text,
		digest: text,
		bytes: count,
		/** The repository as the writer named it (a name or a remote URL; `pickup` maps it to a checkout). */
		repository: text,
		/** Who wrote it: the client's name (an assistant, a script's token label, an agent), the token's owner, the door. */
		writer: z.optional(z.nullable(z.looseObject({client: text, owner: text, via: text, grant: text, host: text}))),
		/** Its acceptance lines (or a transfer's verification), for the verdicts `get_work` shows per line. */
		checks: z.optional(z.array(z.string())),
		/** Fields the writer marked as its guesses (`(guess)`): the worker is told to check them first. */
		guesses: z.optional(z.array(z.string())),
		/** The check's warnings when it was written (errors refuse it). */
		warnings: z.optional(z.array(z.string())),
	}),
	/** A stored contract's text, as written and checked (its sha256 is the drafted event's `digest`). */
	contractText: declare('contract.text', {contractId: text, text: text, digest: text}),
	/**
	 * A stored contract may be taken without a person's `contract.ready`: the writer's token has the
	 * ready-at-once policy a person gave it (`how: policy`), or a person made it ready on another
	 * host of the fleet (`how: fleet`, copied by pickup --fleet). A person's yes here is the
	 * `contract.ready` record every contract gets (`contract ready ID`).
	 */
	contractReadied: declare('contract.readied', {contractId: text, by: text, how: text, osUser: text, uid: count}),
	/**
	 * A person let a connector or a script in (docs/serve.md): a consent approved at a terminal, or a
	 * token minted there. The task id is the grant's id (`g-` + 12 hex); never a token or its hash.
	 */
	accessGranted: declare('access.granted', {
		grantId: text,
		kind: text,
		client: text,
		owner: text,
		scopes: z.optional(z.array(z.string())),
		isReadyAtOnce: z.optional(z.boolean()),
		by: text,
		osUser: text,
		uid: count,
	}),
	/** A grant and every token of it stopped working: revoked by a person, or a replayed code or refresh token. */
	accessRevoked: declare('access.revoked', {grantId: text, by: text, reason: text}),
	/** This host's sync took a request made from a fleet board (docs/fleet.md), before carrying it out. */
	fleetRequestReceived: declare('fleet.request_received', {requestId: count, verb: text, requestedBy: text, requestedAt: count}),
	/** This host carried out (or refused) a request made from a fleet board; the outcome travels back by sync. */
	fleetRequestHandled: declare('fleet.request_handled', {
		requestId: count,
		verb: text,
		/** done, refused, failed, or unknown (interrupted while carrying it out; never retried). */
		outcome: text,
		message: text,
		requestedBy: text,
	}),
	/** The wrapper kept the end of the worker's stdout: its report, for a review packet. */
	outputKept: declare('task.output_kept', {
		/** The last lines of stdout, at most OUTPUT_KEPT_BYTES. */
		text: text,
		/** Every byte the child wrote to stdout. */
		bytes: count,
		isCut: z.optional(z.boolean()),
	}),
	/** `controlroom review` began: which reviewers, how many rounds at most. */
	reviewStarted: declare('review.started', {
		reviewId: text,
		reviewers: z.optional(z.array(z.string())),
		maxRounds: count,
		baseRevision: text,
		/** The contract file no longer holds what the run started with: how it changed (the snapshot is what is read). */
		contractChanged: text,
	}),
	/** A round's packet was written (its path, size, and what was trimmed to fit). */
	reviewPacketBuilt: declare('review.packet_built', {
		reviewId: text,
		round: count,
		path: text,
		bytes: count,
		/** The trimming steps applied, in order (docs/review.md). */
		trimmed: z.optional(z.array(z.string())),
		/** Paths left out of the packet's diff, for the reviewer to open. */
		listed: z.optional(z.array(z.string())),
		reportFrom: text,
		testsFrom: text,
		workerTaskId: text,
	}),
	/** One reviewer's verdict in one round: APPROVE, FIX, INVALID or STOPPED. */
	reviewVerdict: declare('review.verdict', {
		reviewId: text,
		round: count,
		/** 1-based, in the order the reviewers were given. */
		reviewer: count,
		command: text,
		reviewerTaskId: text,
		verdict: text,
		fixes: z.optional(z.array(z.string())),
		reason: text,
		signal: text,
		exitCode: count,
	}),
	/** The fixes went back to the worker, which runs again with them in its brief. */
	reviewFixRound: declare('review.fix_round', {
		reviewId: text,
		/** The round whose fixes go back. */
		round: count,
		fixes: z.optional(z.array(z.string())),
		workerTaskId: text,
		briefPath: text,
		workerStatus: text,
		workerExit: count,
	}),
	/** The review ended: approved, or it needs a person (or an error stopped it). */
	reviewConcluded: declare('review.concluded', {
		reviewId: text,
		outcome: text,
		rounds: count,
		cause: text,
		reason: text,
		isDisagreement: z.optional(z.boolean()),
		exitCode: count,
	}),
	/** A person sent the work back with a reason: the worker runs again, or the claim is free again. */
	workSentBack: declare('work.sent_back', {
		reason: text,
		by: text,
		/** Where it was sent back from: reviews, failed or waiting. */
		from: text,
		rerunTaskId: text,
		briefPath: text,
		logPath: text,
		claimReturned: z.optional(z.boolean()),
		/** The acceptance lines sent back as unmet, each with its reason and who said so (docs/contracts.md, "Accepting"). */
		unmetLines: anything,
	}),
	/**
	 * A person accepted a hand-in that waited for its acceptor: `by` as given (`--as`, else the OS
	 * user), and the OS user and uid of the process that said yes beside it.
	 */
	workAccepted: declare('work.accepted', {by: text, note: text, osUser: text, uid: count}),
	/**
	 * A person's verdict on one acceptance line of a hand-in (`accept`/`send-back --line N --met|--unmet`):
	 * `by` the acceptor named, the OS user and uid of the process beside it (docs/contracts.md, "Accepting").
	 */
	workLineVerdict: declare('work.line_verdict', {
		line: count,
		verdict: text,
		reason: text,
		by: text,
		osUser: text,
		uid: count,
		/** Who still owes which lines once this verdict is in (`waiting for lee: lines 2, 3`); null when nobody. */
		waiting: text,
	}),
	/**
	 * A gate refused a yes (approve, accept, ack, send-back, review) because an agent asked
	 * (docs/security.md): on the task or order asked about, with who asked and why it is an agent.
	 */
	gateRefused: declare('gate.refused', {
		verb: text,
		target: text,
		reason: text,
		/** The asking process, and the agent found above it (its PID, name, task) where one was. */
		pid: count,
		agentPid: count,
		agentName: text,
		agentTask: text,
		user: text,
		uid: count,
		/** terminal, or fleet (a request from a fleet board). */
		door: text,
	}),
	/** One offer of a mediation (docs/mediation.md), with each other agent's answer: never a weight or floor. */
	mediationOffer: declare('mediation.offer', {
		n: count,
		round: count,
		by: text,
		offer: z.optional(z.record(z.string(), z.string())),
		answers: z.optional(
			z.array(
				z.looseObject({
					agent: z.string(),
					answer: z.string(),
					options: z.optional(z.array(z.looseObject({item: z.string(), option: z.string()}))),
				}),
			),
		),
	}),
	/** A mediation ended: the agreement, or a walk-away with what could not be settled and the vetoes. */
	mediationConcluded: declare('mediation.concluded', {
		outcome: text,
		agreement: z.optional(z.nullable(z.record(z.string(), z.string()))),
		agents: z.optional(z.array(z.string())),
		offers: count,
		rounds: count,
		unsettled: z.optional(z.array(z.string())),
		vetoes: z.optional(z.array(vetoSchema)),
	}),
	/** One round of a plan review: the reviewer's task and verdict. */
	planReviewRound: declare('plan.review_round', {
		round: count,
		reviewerTaskId: text,
		command: text,
		verdict: text,
		fixes: z.optional(z.array(z.string())),
		reason: text,
		packetPath: text,
	}),
	/** A plan review ended: approved, or still open after its rounds (a disagreement about what will happen). */
	planReviewConcluded: declare('plan.review_concluded', {outcome: text, rounds: count, reason: text}),
	/** A disagreement that needs a person: the queue's disagreements lane (evidence or value). */
	disagreementOpened: declare('disagreement.opened', {
		/** evidence: they disagree about what will happen (plan review); value: about what to want (mediation). */
		kind: text,
		/** What could not be settled: the items of a mediation, the open points of a plan review. */
		items: z.optional(z.array(z.string())),
		vetoes: z.optional(z.array(vetoSchema)),
		agents: z.optional(z.array(z.string())),
		summary: text,
	}),
	/** A gateway started serving a work order (docs/effects.md). Events about an order carry its id as their task id. */
	orderOpened: declare('order.opened', {
		worker: text,
		/** The order this one was derived from (a sub-agent's order), else null. */
		parent: text,
		budgetCalls: count,
		expiresMs: count,
		/**
		 * The order file, absolute, the sha256 of its bytes and its text: an order id names one order
		 * (another digest under the same id is refused), and an approval runs under this text.
		 */
		file: text,
		digest: text,
		text: text,
		/** Per upstream: its command, the tools offered, which of them are staged. */
		upstreams: anything,
		/** The worker's task (CONTROLROOM_TASK_ID in the gateway's environment), when known. */
		workerTask: text,
		gatewayPid: count,
	}),
	/** `order derive` wrote an order for a sub-agent from this one. */
	orderDerived: declare('order.derived', {child: text, worker: text, file: text, staged: z.optional(z.array(z.string()))}),
	/** A person approved held effects; the runs follow as effect.started / effect.finished. */
	orderApproved: declare('order.approved', {
		ids: z.optional(z.array(z.string())),
		reconciled: z.optional(z.boolean()),
		report: text,
		/** The person who said yes (their OS user; a fleet board's user), where recorded. */
		by: text,
	}),
	/** An approval found the report and the gateway's log disagree, and ran nothing. */
	orderApprovalRefused: declare('order.approval_refused', {mismatches: z.optional(z.array(z.string())), report: text}),
	/** A person sent the order's held effects back, with a reason: they are dropped. */
	orderSentBack: declare('order.sent_back', {ids: z.optional(z.array(z.string())), reason: text, by: text}),
	/** A read passed through the gateway (recorded before it is forwarded). */
	effectRead: declare('effect.read', {id: text, seq: count, upstream: text, tool: text, args: anything}),
	/** A staged call, held with its arguments; the worker got a placeholder. */
	effectHeld: declare('effect.held', {
		id: text,
		seq: count,
		upstream: text,
		tool: text,
		args: anything,
		expiresAt: count,
		/** Claude Code's id of the call, and the session whose hook recorded it, where known. */
		toolUseId: text,
		session: text,
	}),
	/**
	 * A call the gateway refused (not in the order, over budget, staged in a derived order, a staged
	 * tool called from a sub-agent: then `agentId`, `agentType` name it).
	 */
	effectRefused: declare('effect.refused', {
		tool: text,
		upstream: text,
		reason: text,
		args: anything,
		agentId: text,
		agentType: text,
		toolUseId: text,
		session: text,
	}),
	/** An approved effect is about to be sent upstream: recorded before the call, so it is never sent twice. */
	effectStarted: declare('effect.started', {id: text, args: anything, approverPid: count, approverStartTime: count}),
	/** The upstream answered a read or an approved effect. */
	effectFinished: declare('effect.finished', {id: text, isError: z.optional(z.boolean()), result: anything, error: text}),
	/** An effect was started and its end never recorded (its approver died): never retried automatically. */
	effectOutcomeUnknown: declare('effect.outcome_unknown', {id: text, reason: text}),
	/** A held effect passed its order's expiry unapproved. */
	effectExpired: declare('effect.expired', {id: text}),
	/**
	 * A question waits for a person (docs/decisions.md): an agent's permission prompt, a headless
	 * run's deferred call, a budget crossed, a held effect. The event's task is the agent's task;
	 * `decisionId` (`d-` + 12 hex) names the question. `argsHash` is the SHA-256 of the canonical
	 * JSON of `args` (RFC 8785): an answer is good for that hash only.
	 */
	decisionAsked: declare('decision.asked', {
		decisionId: text,
		/** permission, deferred, budget, effect or collision. */
		kind: text,
		agent: text,
		tool: text,
		args: anything,
		argsHash: text,
		cwd: text,
		/** When the question stops waiting (ms), or null: until answered or withdrawn. */
		expiresAt: count,
		/** The agent's id of the call, and its session, where known. */
		toolUseId: text,
		session: text,
		/** The process waiting for the answer (an interactive hook), with its start time; null: none waits (a resume answers it). */
		waiter: z.optional(z.nullable(z.looseObject({pid: count, startTime: count}))),
		/** A budget question's figures: tokens spent, the budget, tokens per turn. */
		budget: z.optional(z.nullable(z.looseObject({spent: count, budget: count, perTurn: count}))),
		/** A collision's other writer: the file (real path), the other task, its last edit (ms). */
		collision: z.optional(
			z.nullable(z.looseObject({file: text, otherTask: text, otherEditAt: count, isHeadless: z.optional(z.boolean())})),
		),
	}),
	/** A person answered a question: allow or deny, with a reason, for the arguments of `argsHash` only. */
	decisionAnswered: declare('decision.answered', {
		decisionId: text,
		answer: text,
		reason: text,
		by: text,
		argsHash: text,
		/** A budget question allowed: the tokens added to the budget. */
		headroom: count,
	}),
	/**
	 * A passkey was enrolled (docs/passkeys.md): its credential id and COSE public key (base64url),
	 * its signature counter, the name the person gave it, the relying party it was made for, and
	 * the passkey that approved it (an enrollment while one exists needs one; null for the first).
	 */
	passkeyEnrolled: declare('passkey.enrolled', {
		credentialId: text,
		publicKey: text,
		counter: count,
		name: text,
		transports: z.optional(z.nullable(z.array(z.string()))),
		rpId: text,
		origin: text,
		by: text,
		approvedBy: text,
	}),
	/**
	 * A person answered with a passkey: the signed answer (the item, its digest, the answer, expiry,
	 * nonce) and what the authenticator returned (base64url), with the public key it was checked
	 * against, so anyone can check the signature from this event alone (docs/passkeys.md).
	 */
	passkeyAsserted: declare('passkey.asserted', {
		credentialId: text,
		name: text,
		publicKey: text,
		signed: anything,
		authenticatorData: text,
		clientDataJSON: text,
		signature: text,
		origin: text,
		rpId: text,
		counter: count,
	}),
	/** The approvals policy changed: `passkey` (every yes needs a passkey) or `terminal`; who and how (docs/passkeys.md). */
	approvalsSet: declare('approvals.set', {policy: text, by: text, credentialId: text, how: text}),
	/** An answer was carried out (returned to the hook, or a resume ran with it): once only. */
	decisionUsed: declare('decision.used', {decisionId: text, argsHash: text}),
	/** A question stopped waiting unanswered: answered in the agent's pane, its hook died, or it expired. */
	decisionWithdrawn: declare('decision.withdrawn', {decisionId: text, why: text}),
	/**
	 * One model request as the agent's own OpenTelemetry reported it (docs/otel.md): Claude Code's
	 * `api_request` log event (exact `costUsd`), Codex's `response.completed`. Tokens are the
	 * request's own; `input` includes cache reads and writes, as a transcript's count does.
	 */
	telemetryRequest: declare('telemetry.request', {
		requestId: text,
		model: text,
		input: count,
		output: count,
		cacheRead: count,
		cacheCreation: count,
		costUsd: count,
		/** A reported cost its tokens cannot back (over `costCeilingUsd`): kept here, `costUsd` null, never summed. */
		claimedCostUsd: count,
		/** What the request's tokens could cost at most at the price table, where a claim was set aside (docs/otel.md). */
		costCeilingUsd: count,
		durationMs: count,
		sessionId: text,
		agentId: text,
		traceId: text,
	}),
	/** A tool decision or result the agent's telemetry reported (`tool_decision`, `tool_result`). */
	telemetryTool: declare('telemetry.tool', {
		event: text,
		toolName: text,
		toolUseId: text,
		decision: text,
		decisionSource: text,
		success: z.optional(z.nullable(z.boolean())),
		durationMs: count,
		sessionId: text,
		agentId: text,
	}),
	/** One data point of the agent's own cost or token counter (a delta), kept as a cross-check. */
	telemetryMetric: declare('telemetry.metric', {name: text, value: count, unit: text, kind: text, model: text, sessionId: text}),
};

type Declared = typeof DECLARED;

/** Every event type this build understands. */
export type EventTypeName = Declared[keyof Declared]['type'];

/** Per stored type, the schema of its data. */
type DataSchemas = {readonly [K in keyof Declared as Declared[K]['type']]: Declared[K]['data']};

/** The data an event of type T carries. */
export type EventDataOf<T extends EventTypeName> = z.infer<DataSchemas[T]>;

/** An event's type and data, for one type (or, given a union, one member per type). */
type BodyOf<T extends EventTypeName> = {[P in T]: {type: P; data: EventDataOf<P>}}[T];

/** An event's type and data: what it says. */
export type EventBody = BodyOf<EventTypeName>;

/** What code writes for each type (`EventType.started` is 'task.started'): read off the declaration. */
export const EventType = typeNames(DECLARED);

/** Each declared key with its stored type name. */
function typeNames<D extends Readonly<Record<string, {readonly type: string}>>>(
	declared: D,
): {readonly [K in keyof D]: D[K]['type']} {
	const names: Record<string, string> = {};
	for (const [key, declaration] of Object.entries(declared)) names[key] = declaration.type;
	// One entry per declared key, written just above: TypeScript cannot type a loop's object.
	return names as {readonly [K in keyof D]: D[K]['type']};
}

/** The parser's table: each stored type with its declaration, whose schema is built when first read. */
type DeclarationsByType = {readonly [T in EventTypeName]: {readonly data: z.ZodMiniType<EventDataOf<T>>}};

/** Each stored type with its declaration (not its schema, so that no schema is built here). */
function declarationsByType(declared: Declared): DeclarationsByType {
	const byType: Record<string, {readonly data: z.ZodMiniType}> = {};
	for (const declaration of Object.values(declared)) byType[declaration.type] = declaration;
	// One entry per declared type, written just above: TypeScript cannot type a loop's object.
	return byType as DeclarationsByType;
}

const DECLARATIONS = declarationsByType(DECLARED);

/** The rest of an event: which task, when, and who said it. */
type EventEnvelope = {
	readonly taskId: string;
	/** Milliseconds since the epoch, as the producer saw it. */
	readonly at: number;
	/** Who wrote it: wrapper, claude, codex, reconciler, board, cli, mcp. */
	readonly source: string;
	/** Same key, same event: a second append with it adds nothing. */
	readonly dedupKey?: string | null;
};

/** An event about to be appended: what a producer says, before the ledger numbers it. */
export type NewEvent = EventEnvelope & EventBody;

/** A JSON object as stored in an event's data column. */
export type EventData = Readonly<Record<string, unknown>>;

/** The type name readers see for an event whose type this build does not know. */
export const FOREIGN_EVENT = 'foreign';

/**
 * An event this build cannot read: a type from a newer build, or data that does not match its
 * type's schema. It is kept in the ledger and shown on the timeline, and the projection skips it.
 */
export type ForeignEvent = EventEnvelope & {
	readonly type: typeof FOREIGN_EVENT;
	/** The type as stored. */
	readonly storedType: string;
	readonly data: EventData;
	readonly seq: number;
};

/** An event as stored and read back: numbered by a monotonic sequence readers can tail by. */
export type LedgerEvent = (NewEvent & {readonly seq: number}) | ForeignEvent;

/** A stored event of one known type, as the typed reads return it. */
export type EventOfType<T extends EventTypeName> = NewEvent & {readonly type: T; readonly seq: number};

/** One row as the store hands it over, data still JSON text. */
export type StoredEventRow = {
	readonly seq: number;
	readonly taskId: string;
	readonly type: string;
	readonly at: number;
	readonly source: string;
	readonly data: string;
	readonly dedupKey: string | null;
	/** When it arrived in the ledger (null: recorded before arrival was kept). */
	readonly arrivedAt?: number | null;
	/** Its link in the ledger's hash chain, as hex (docs/ledger.md, "The hash chain"). */
	readonly hash?: string | null;
};

/** Whether this build declares the type. */
function isDeclared(type: string): type is EventTypeName {
	return Object.hasOwn(DECLARATIONS, type);
}

/** A declared type's data read through its schema; null when it does not fit. */
function parseBody<T extends EventTypeName>(type: T, data: unknown): BodyOf<T> | null {
	const parsed = DECLARATIONS[type].data.safeParse(data);
	return parsed.success ? {type, data: parsed.data} : null;
}

/** Reads a stored row through the schema: a known event, or a foreign one kept as it was. */
export function parseStoredEvent(row: StoredEventRow): LedgerEvent {
	const envelope = {seq: row.seq, taskId: row.taskId, at: row.at, source: row.source, dedupKey: row.dedupKey};
	let data: unknown;
	try {
		data = JSON.parse(row.data);
	} catch {
		data = {};
	}
	const body = isDeclared(row.type) ? parseBody(row.type, data) : null;
	if (body !== null) return {...envelope, ...body};
	const kept = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as EventData) : {};
	return {...envelope, type: FOREIGN_EVENT, storedType: row.type, data: kept};
}

/** The type as stored, for output that names it (`timeline --json`). */
export function storedTypeOf(event: LedgerEvent): string {
	return event.type === FOREIGN_EVENT ? event.storedType : event.type;
}

/**
 * Pairs a type with its data, checked at compile time. The union is built from the declaration T
 * comes from, so no type can be missing from it; TypeScript cannot follow a generic key into a
 * union, hence the cast (here and in newEvent).
 */
export function eventBody<T extends EventTypeName>(type: T, data: EventDataOf<T>): EventBody & {readonly type: T} {
	const body: BodyOf<T> = {type, data};
	return body as unknown as EventBody & {readonly type: T};
}

/** Builds an event to append, checked against its type's data at compile time. */
export function newEvent<T extends EventTypeName>(
	type: T,
	data: EventDataOf<T>,
	envelope: EventEnvelope,
): NewEvent & {readonly type: T} {
	// One literal of one shape (no spreads): the mapping builds one of these per event of a bulk import.
	const event: EventEnvelope & BodyOf<T> = {
		taskId: envelope.taskId,
		at: envelope.at,
		source: envelope.source,
		dedupKey: envelope.dedupKey ?? null,
		type,
		data,
	};
	return event as unknown as NewEvent & {readonly type: T};
}
