/** The id of the one `owner_credentials` row (a site has one owner). */
export const ownerCredentialId = "owner";
