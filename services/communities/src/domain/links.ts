/** Absolute links of communities and their sub-resources, built from PUBLIC_BASE_URL. */

/** Link builder for one base URL. */
export class CommunityLinks {
  constructor(readonly base: string) {}

  /** `links` of a community (spec list + reference §2.3). */
  community(c: { id: string; slug: string }): Record<string, string> {
    const api = `${this.base}/api/communities/${c.id}`;
    return {
      self: api,
      self_html: `${this.base}/communities/${c.slug}`,
      settings_html: `${this.base}/communities/${c.slug}/settings`,
      logo: `${api}/logo`,
      rename: `${api}/rename`,
      members: `${api}/members`,
      public_members: `${api}/members/public`,
      invitations: `${api}/invitations`,
      requests: `${api}/requests`,
      records: `${api}/records`,
      membership_requests: `${api}/membership-requests`,
      featured: `${api}/featured`,
    };
  }

  /** Avatar of a user. */
  avatar(userId: string): string {
    return `${this.base}/api/users/${userId}/avatar.svg`;
  }

  /** Request action link. */
  requestAction(requestId: string, action: string): string {
    return `${this.base}/api/requests/${requestId}/actions/${action}`;
  }

  /** HTML page of a community request. */
  requestHtml(slug: string, requestId: string, kind: 'requests' | 'membership-requests' = 'requests'): string {
    return `${this.base}/communities/${slug}/${kind}/${requestId}`;
  }

  /** URL of a schema extension's JSON Schema. */
  schema(schemaId: string): string {
    return `${this.base}/api/community-schema-extension/schema/${schemaId}/jsonschema`;
  }
}
