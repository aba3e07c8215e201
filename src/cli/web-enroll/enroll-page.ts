// The one page `controlroom web enroll` serves on loopback (docs/passkeys.md): a button that asks
// the browser for a passkey (first an enrolled passkey's approval, when one exists) and posts what
// the authenticator returns. No data of the ledger is on it; the passkey's name is the person's,
// given on the command line, and is escaped here.

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, char => `&#${char.charCodeAt(0)};`);

const SCRIPT = `
const base = location.pathname.replace(/\\/$/, '');
const say = text => { document.getElementById('status').textContent = text; };
async function post(path, body) {
	const reply = await fetch(base + path, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
	const json = await reply.json().catch(() => ({error: 'HTTP ' + reply.status}));
	if (!reply.ok) throw new Error(json.error || 'HTTP ' + reply.status);
	return json;
}
async function enroll() {
	const button = document.getElementById('enroll');
	button.disabled = true;
	try {
		const begin = await post('/begin', {});
		if (begin.approve) {
			say('Confirm with a passkey you enrolled before…');
			const approval = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(begin.approve.options)});
			await post('/approve', {signed: begin.approve.signed, response: approval.toJSON()});
		}
		say('Create the new passkey…');
		const made = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(begin.register)});
		const done = await post('/finish', {response: made.toJSON()});
		say('Enrolled "' + done.name + '". You can close this tab.');
		document.body.dataset.state = 'enrolled';
	} catch (error) {
		say('Not enrolled: ' + (error && error.message ? error.message : String(error)));
		document.body.dataset.state = 'failed';
		button.disabled = false;
	}
}
document.getElementById('enroll').addEventListener('click', enroll);
`;

/** The page, for the passkey named `name`. */
export function enrollPage(name: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>controlroom: enroll a passkey</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1.2rem}</style>
</head><body data-state="ready">
<h1>Enroll a passkey</h1>
<p>This adds the passkey <strong>${escapeHtml(name)}</strong> to controlroom on this machine. With it you answer agents' questions, and only you can: every answer is signed with it after your fingerprint, face or PIN.</p>
<button id="enroll" type="button">Enroll passkey</button>
<p id="status" role="status"></p>
<script>${SCRIPT}</script>
</body></html>`;
}
