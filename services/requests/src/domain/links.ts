/** Absolute link templates of requests and timeline events (built from PUBLIC_BASE_URL). */

/** Link builder bound to the public base URL. */
export class RequestLinks {
  constructor(readonly base: string) {}

  /** `…/api/requests/<id>`. */
  request(id: string): string {
    return `${this.base}/api/requests/${id}`;
  }

  /** `…/api/requests/<id>/<suffix>`. */
  sub(id: string, suffix: string): string {
    return `${this.base}/api/requests/${id}/${suffix}`;
  }

  /** `…/api/requests/<id>/actions/<action>`. */
  action(id: string, action: string): string {
    return `${this.base}/api/requests/${id}/actions/${action}`;
  }

  /** An HTML page path made absolute. */
  html(path: string): string {
    return `${this.base}${path}`;
  }

  /** `…/api/requests/<id>/comments/<event id>[/<suffix>]`. */
  comment(id: string, eventId: string, suffix?: string): string {
    return `${this.base}/api/requests/${id}/comments/${eventId}${suffix ? `/${suffix}` : ''}`;
  }
}
