import {decisionState, type DecisionRecord} from '../../core/decisions/fold.ts';
import {html} from './render.ts';

/** What the page's script needs from the server: the view it shows and the board's keys in force. */
export type PageContext = {
	readonly title: string;
	/** The board's HTML, drawn by the server: the page reads without its script. */
	readonly board: string;
	/** The view the stream follows (`/events?...`). */
	readonly stream: string;
	/** Each navigation command's keys (the config file's `keys` applied), for the script. */
	readonly keys: Readonly<Record<string, readonly string[]>>;
	/** Extra markup under the board (the answers a signed-in person may give). */
	readonly below?: string;
	readonly csrf?: string;
};

/** The whole page: the board inside, a small script for live updates and keys, a stylesheet; no inline script. */
export function pageHtml(context: PageContext): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(context.title)}</title>
<link rel="stylesheet" href="/board.css">
<script src="/board.js" defer></script>
</head><body data-stream="${html(context.stream)}" data-keys="${html(JSON.stringify(context.keys))}"${context.csrf === undefined ? '' : ` data-csrf="${html(context.csrf)}"`}>
<div id="board">${context.board}</div>
${context.below ?? ''}
<noscript><p class="dim">Live updates and keys need the page's script; reload to see what changed.</p></noscript>
</body></html>`;
}

/** The page's stylesheet: the terminal's look (monospace, the tones), one column at a phone's width. */
export const BOARD_CSS = `
:root{color-scheme:dark;--bg:#111417;--fg:#d8dee4;--dim:#7d8590;--ok:#3fb950;--warn:#d29922;--error:#f85149;--muted:#7d8590;--info:#58a6ff;--accent:#bc8cff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
#board{padding:8px 10px;max-width:100%;overflow-x:auto}
header{position:sticky;top:0;z-index:1;background:var(--bg);padding:2px 0 6px;border-bottom:1px solid #2d333b;margin-bottom:6px;display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 2ch}
.l{white-space:pre;min-height:1.45em;display:block;color:inherit;text-decoration:none}
a.l:hover,a.l.sel{background:#1f2a37;outline:1px solid #2f81f7}
.b{font-weight:bold}.dim{color:var(--dim)}
.t-ok{color:var(--ok)}.t-warn{color:var(--warn)}.t-error{color:var(--error)}.t-muted{color:var(--muted)}.t-info{color:var(--info)}.t-accent{color:var(--accent)}
.panel{margin:0 0 12px}
.band{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:12px}
.band .l{white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:2px 0 6px 2ch}td,th{padding:0 1.5ch 0 0;text-align:left;white-space:pre}
.why{white-space:pre-wrap}
.answers{padding:8px 10px;border-top:1px solid #2d333b}
.answers form{display:inline}
button{font:inherit;background:#21262d;color:var(--fg);border:1px solid #3d444d;border-radius:4px;padding:6px 12px;margin:4px 6px 4px 0;min-height:36px}
button.yes{border-color:var(--ok)}button.no{border-color:var(--error)}
.plain{max-width:40em;white-space:normal;line-height:1.6}.plain pre,.plain code{background:#21262d;padding:2px 6px}
@media (max-width:600px){body{font-size:12px}#board{padding:6px}.band{grid-template-columns:1fr}}
`;

/** A page with no board: sign-in, a refusal, a question. Its markup is made here, its words escaped; a script of this server's only when named. */
export function plainPage(title: string, body: string, script?: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)}</title>
<link rel="stylesheet" href="/board.css">
${script === undefined ? '' : `<script src="${html(script)}" defer></script>\n`}</head><body><div id="board" class="plain">${body}</div></body></html>`;
}

/** What a browser without a session sees: how a person signs in. */
export function signInNeededPage(): string {
	return plainPage(
		'controlroom: sign in',
		`<h1>Sign in</h1><p>This board shows what your agents do, and answers for you: it opens only to a person.</p>
<p>At a terminal on the machine the agents run on, run</p><pre>controlroom web link</pre>
<p>and open the link it prints (it works once, for five minutes).</p>`,
	);
}

/** The page a sign-in link opens: one button that spends the link (a link preview that fetches it spends nothing). */
export function signInPage(linkSecret: string): string {
	return plainPage(
		'controlroom: sign in',
		`<h1>Sign in to controlroom</h1><p>This link was printed at a terminal with <code>controlroom web link</code>. It works once.</p>
<form method="post" action="/signin"><input type="hidden" name="link" value="${html(linkSecret)}"><button class="yes" type="submit">Sign in</button></form>`,
	);
}

/** A link that was used, expired, or never made. */
export function linkRefusedPage(): string {
	return plainPage(
		'controlroom: link refused',
		`<h1>This sign-in link does not work</h1><p>It was used already, or it expired (a link works once, for five minutes), or it was never made here.</p><p>Run <code>controlroom web link</code> at a terminal for a new one.</p>`,
	);
}

/**
 * A question's page: the call whole (the board's drill-in), and, while it is open, allow and deny
 * bound to this question and the arguments' hash shown (a changed call, or a second tab's answer,
 * is refused). Forms carry the session's CSRF token. With a passkey enrolled (`isPasskeyOn`) the
 * page's script has the passkey sign each answer over exactly this call before the form goes
 * (docs/passkeys.md); without one the forms work without the script.
 */
export function questionPage(
	body: string,
	decision: DecisionRecord | undefined,
	csrf: string,
	now: number,
	isPasskeyOn = false,
): string {
	const state = decision === undefined ? null : decisionState(decision, now);
	const isOpen = decision !== undefined && state === 'open';
	const hidden = (name: string, value: string): string => `<input type="hidden" name="${name}" value="${html(value)}">`;
	const fields =
		decision === undefined
			? ''
			: hidden('id', decision.id) +
				hidden('hash', decision.argsHash) +
				hidden('csrf', csrf) +
				(isPasskeyOn ? hidden('signed', '') + hidden('assertion', '') : '');
	const how = isPasskeyOn ? ' Your passkey signs it (fingerprint, face or PIN).' : '';
	const answers = isOpen
		? `<div class="answers"${isPasskeyOn ? ' data-passkey="on"' : ''}><p class="dim">arguments' hash ${html(decision.argsHash.slice(0, 16))}…: the answer is for this call only, once.${how}</p>
<form class="answer" method="post" action="/answer">${fields}<input type="hidden" name="answer" value="allow"><button class="yes" type="submit">Allow this call once</button></form>
<form class="answer" method="post" action="/answer">${fields}<input type="hidden" name="answer" value="deny"><input name="reason" maxlength="500" placeholder="reason the agent reads"><button class="no" type="submit">Deny</button></form>
<p id="passkey-status" role="status"></p></div>`
		: `<div class="answers"><p class="dim">${decision === undefined ? 'No such question is open.' : `This question is ${html(state ?? '')}.`}</p></div>`;
	return plainPage(
		`controlroom · ${decision?.id ?? 'question'}`,
		`<p><a href="/">← the board</a></p>${body}${answers}`,
		isOpen && isPasskeyOn ? '/answer.js' : undefined,
	);
}

/** What an answer did, or why it was refused, with the way back. */
export function answeredPage(text: string, isDone: boolean): string {
	return plainPage(
		'controlroom · answer',
		`<p class="${isDone ? 't-ok' : 't-error'}">${html(text)}</p><p><a href="/">← the board</a></p>`,
	);
}
