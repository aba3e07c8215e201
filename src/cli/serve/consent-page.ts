import type {Response} from 'express';
import {describeScopes, SCOPE_MEANINGS, isScope} from '../../core/access.ts';

// The one page a person sees in the browser while connecting an assistant (docs/serve.md, "A
// person's yes"): who asks, for what, and the command to approve it at their own terminal. The
// browser cannot approve: nothing on the page says yes. Every value on it is escaped (a client's
// name is whatever the client registered), and the page runs no script at all.

/** Text made safe inside HTML, attributes included. */
export function htmlEscape(text: string): string {
	return text.replace(
		/[&<>"'`]/g,
		char => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;'})[char] ?? char,
	);
}

/** Headers every page of ours carries: no script, no frame, no cache, no referrer. */
function securePage(res: Response): Response {
	return res
		.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'")
		.set('X-Frame-Options', 'DENY')
		.set('Referrer-Policy', 'no-referrer')
		.set('X-Content-Type-Options', 'nosniff')
		.set('Cache-Control', 'no-store')
		.type('html');
}

function page(title: string, body: string, refreshSeconds: number | null): string {
	const refresh = refreshSeconds === null ? '' : `<meta http-equiv="refresh" content="${refreshSeconds}">`;
	return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<meta name="viewport" content="width=device-width, initial-scale=1"><title>${htmlEscape(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em}code{font-size:1.1em;background:#eee;padding:.1em .3em}.code{font-size:2em;letter-spacing:.1em}</style></head><body>${body}</body></html>`;
}

/** What a waiting consent shows. */
export type ConsentView = {
	readonly clientName: string;
	readonly redirectHost: string;
	readonly scopes: readonly string[];
	readonly code: string;
	readonly expiresAt: number;
};

/** The waiting page: it reloads itself every two seconds until a person answered at a terminal. */
export function sendConsentPage(res: Response, view: ConsentView): void {
	const scopes = view.scopes.filter(isScope).map(scope => `<li><code>${scope}</code>: ${htmlEscape(SCOPE_MEANINGS[scope])}</li>`);
	const body = [
		'<h1>Connect to controlroom</h1>',
		`<p><strong>${htmlEscape(view.clientName)}</strong> (it returns to <code>${htmlEscape(view.redirectHost)}</code>) asks to ${htmlEscape(describeScopes(view.scopes))} for your agents:</p>`,
		`<ul>${scopes.join('')}</ul>`,
		'<p>It can never approve, accept or answer anything: only you do, at your terminal.</p>',
		'<p>If you started this, run at your own terminal:</p>',
		`<p><code id="approve" class="code">controlroom serve approve ${htmlEscape(view.code)}</code></p>`,
		`<p>This page moves on by itself once you have (it waits until ${htmlEscape(new Date(view.expiresAt).toISOString())}). If you did not start it, do nothing, or run <code>controlroom serve deny ${htmlEscape(view.code)}</code>.</p>`,
	].join('');
	securePage(res)
		.status(200)
		.send(page('Connect to controlroom', body, 2));
}

/** A page that ends the flow here: done, expired, unknown. */
export function sendEndPage(res: Response, status: number, title: string, message: string): void {
	securePage(res)
		.status(status)
		.send(page(title, `<h1>${htmlEscape(title)}</h1><p>${htmlEscape(message)}</p>`, null));
}
