/**
 * Who is counted: the visitor hash (COUNTER's "user session" stand-in) and the robot filter.
 *
 * When to use: by the emitters of view/download events (records' stats middleware, files'
 * download route), before publishing; the raw address and user agent never leave the process.
 */
import { createHmac } from 'node:crypto';

// COUNTER-Robots style list (abridged): substrings of user agents of crawlers, monitors and
// command-line clients; matched case-insensitively.
const BOT_PATTERNS = [
  'bot',
  'crawl',
  'spider',
  'slurp',
  'archiver',
  'facebookexternalhit',
  'bingpreview',
  'mediapartners',
  'curl/',
  'wget',
  'python-requests',
  'python-urllib',
  'httpclient',
  'java/',
  'go-http-client',
  'libwww',
  'okhttp',
  'axios/',
  'node-fetch',
  'headlesschrome',
  'phantomjs',
  'lighthouse',
  'pingdom',
  'uptime',
  'monitor',
  'scrapy',
  'ahrefs',
  'semrush',
  'yandex',
  'baidu',
  'bytespider',
  'petalbot',
  'gptbot',
  'ccbot',
];
const BOT = new RegExp(BOT_PATTERNS.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'i');

/** True for robots (and an empty user agent). */
export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || BOT.test(userAgent);
}

/** HMAC-SHA256 of address + user agent (keyed by a server secret so it cannot be reversed by guessing). */
export function visitorHash(address: string, userAgent: string, secret: string): string {
  return createHmac('sha256', secret).update(`${address}\n${userAgent}`).digest('base64url').slice(0, 32);
}
