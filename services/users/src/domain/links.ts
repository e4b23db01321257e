/** Absolute links of user resources, built from PUBLIC_BASE_URL (InvenioRDM `links_item`). */

/** The `links` object of a user. */
export interface UserLinks {
  self: string;
  avatar: string;
  records_html: string;
}

/** Links of user `id` under `baseUrl` (no trailing slash). */
export function userLinks(baseUrl: string, id: string): UserLinks {
  return {
    self: `${baseUrl}/api/users/${id}`,
    avatar: `${baseUrl}/api/users/${id}/avatar.svg`,
    records_html: `${baseUrl}/search?q=parent.access.owned_by.user:${id}`,
  };
}
