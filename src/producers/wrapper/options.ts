import type {Ledger} from '../../ledger/open-ledger.ts';
import type {AgentKind} from '../agent-kind.ts';

/** Default token budget of a wrapped run (PRODUCT.md §4.1). */
export const DEFAULT_BUDGET = 40_000_000;
/** Default heartbeat interval while the child lives. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Time the child gets after a forwarded SIGTERM/SIGHUP/SIGQUIT (or a budget stop) before SIGKILL. */
export const DEFAULT_WRAPPER_GRACE_MS = 10_000;

export type WrapperOptions = {
	readonly ledger: Ledger;
	readonly command: string;
	readonly args: readonly string[];
	readonly title: string | null;
	readonly steps: number | null;
	readonly budget: number;
	readonly agent: AgentKind;
	readonly role: 'worker' | 'reviewer';
	readonly cwd: string;
	readonly wait: boolean;
	readonly slots: number;
	readonly home: string;
	readonly heartbeatMs: number;
	readonly graceMs: number;
	/** Child output goes here instead of the terminal. */
	readonly logFile: string | null;
	/** The wrapper's own one-line notices (never the child's output). */
	readonly notice: (line: string) => void;
};

/** The task's title: the one given, or the start of the command line. */
export function titleOf(options: Pick<WrapperOptions, 'title' | 'command' | 'args'>): string {
	return options.title ?? commandLineOf(options).slice(0, 80);
}

/** The command line as one string, as recorded on the row. */
export function commandLineOf(options: Pick<WrapperOptions, 'command' | 'args'>): string {
	return [options.command, ...options.args].join(' ');
}
