// A question's page with a passkey enrolled (docs/passkeys.md, "Answering from the web"): before an
// answer's form goes, the server makes the signed answer (this question, the arguments' hash shown,
// the answer, an expiry, a nonce) and the passkey signs it, with user verification; the form then
// carries the signed answer and the assertion, and the server checks both before the gate answers.
// It builds no markup: the only thing it writes into the page is a status line, as text.

const status = document.getElementById('passkey-status');
const say = (text: string): void => {
	if (status) status.textContent = text;
};

type Begin = {readonly signed?: unknown; readonly options?: PublicKeyCredentialRequestOptionsJSON; readonly error?: string};

async function sign(form: HTMLFormElement): Promise<void> {
	const fields = new URLSearchParams();
	for (const [name, value] of new FormData(form)) if (typeof value === 'string') fields.append(name, value);
	say('Confirm with your passkey…');
	const reply = await fetch('/answer/begin', {method: 'POST', body: fields});
	const begin = (await reply.json().catch(() => ({error: `the server answered ${reply.status}`}))) as Begin;
	if (!reply.ok || begin.options === undefined) throw new Error(begin.error ?? `the server answered ${reply.status}`);
	const credential = (await navigator.credentials.get({
		publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(begin.options),
	})) as PublicKeyCredential | null;
	if (credential === null) throw new Error('the passkey gave no answer');
	// The challenge is the signed answer's hash: the server made it, the page only carries it back.
	(form.elements.namedItem('signed') as HTMLInputElement).value = JSON.stringify(begin.signed ?? null);
	(form.elements.namedItem('assertion') as HTMLInputElement).value = JSON.stringify(credential.toJSON());
	document.body.dataset['passkey'] = 'signed';
	form.submit();
}

for (const form of document.querySelectorAll<HTMLFormElement>('form.answer')) {
	form.addEventListener('submit', event => {
		event.preventDefault();
		for (const button of form.querySelectorAll('button')) button.disabled = true;
		sign(form).catch((error: unknown) => {
			say(`Not answered: ${error instanceof Error ? error.message : String(error)}`);
			document.body.dataset['passkey'] = 'failed';
			for (const button of form.querySelectorAll('button')) button.disabled = false;
		});
	});
}
