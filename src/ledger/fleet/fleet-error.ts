/** A PostgreSQL failure in words a person can act on; never the URL's password. */
export class FleetError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'FleetError';
	}
}
