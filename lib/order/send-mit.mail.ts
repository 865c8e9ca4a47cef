import { trackingLinks } from './order.mapper';

/**
 * The words of the in-transit mail by language. Decision (document 1 says only that send_mit
 * "sends the in-transit mail"): the mail speaks the seller's language, the locale its invoices
 * use (lib/account sellerLocale, 'de-DE' unless set), German for a German locale and English
 * otherwise, since the seller's own mail_text in it is written in that language too.
 */
const words = {
  de: {
    subject: (id: string) => `Ihre Bestellung ${id} ist unterwegs`,
    greeting: 'Guten Tag,',
    shipped: (id: string, date: string, deliverer: string) => `Ihre Bestellung ${id} wurde am ${date}${deliverer ? ` mit ${deliverer}` : ''} versandt.`,
    codes: (n: number) => (n > 1 ? 'Sendungsnummern' : 'Sendungsnummer'),
    follow: 'Sendung verfolgen:',
    regards: 'Viele Grüße',
  },
  en: {
    subject: (id: string) => `Your order ${id} is on its way`,
    greeting: 'Hello,',
    shipped: (id: string, date: string, deliverer: string) => `your order ${id} was shipped on ${date}${deliverer ? ` with ${deliverer}` : ''}.`,
    codes: (n: number) => (n > 1 ? 'Tracking codes' : 'Tracking code'),
    follow: 'Follow your parcel:',
    regards: 'Kind regards',
  },
};

/** send_mit's date (YYYY-MM-DD) as the locale writes it; the date as given where the locale is unknown to Intl. */
function dateIn(locale: string, date: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  } catch {
    return date;
  }
}

/**
 * The in-transit mail of send_mit: carrier, tracking codes with their tracking links, the seller's
 * text, signed with the seller's name (lib/account sellerName) when the account has one.
 */
export function inTransitMail(
  order: { id: string },
  deliverer: string | null,
  codes: string[],
  date: string,
  mailText: string,
  seller: { locale: string; name: string },
): { subject: string; text: string } {
  const german = seller.locale.toLowerCase().startsWith('de');
  const w = german ? words.de : words.en;
  // The date as the text's language writes it: a French seller's English mail says 20 November, not 20 novembre.
  const dateLocale = german || seller.locale.toLowerCase().startsWith('en') ? seller.locale : 'en-GB';
  const links = trackingLinks(deliverer ?? undefined, codes.join(' '));
  const lines = [w.greeting, '', w.shipped(order.id, dateIn(dateLocale, date), deliverer ?? '')];
  if (codes.length) lines.push('', `${w.codes(codes.length)}: ${codes.join(', ')}`);
  if (links.length) lines.push('', w.follow, ...links);
  if (mailText.trim()) lines.push('', mailText.trim());
  lines.push('', w.regards, ...(seller.name ? [seller.name] : []));
  return { subject: w.subject(order.id), text: `${lines.join('\n')}\n` };
}
