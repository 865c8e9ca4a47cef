import { trackingLinks } from './order.mapper';

/** The in-transit mail of send_mit: carrier, tracking codes with their tracking links, the seller's text. */
export function inTransitMail(
  order: { id: string },
  deliverer: string | null,
  codes: string[],
  date: string,
  mailText: string,
): { subject: string; text: string } {
  const links = trackingLinks(deliverer ?? undefined, codes.join(' '));
  const lines = ['Hello,', '', `your order ${order.id} was shipped on ${date}${deliverer ? ` with ${deliverer}` : ''}.`];
  if (codes.length) lines.push('', `Tracking code${codes.length > 1 ? 's' : ''}: ${codes.join(', ')}`);
  if (links.length) lines.push('', 'Follow your parcel:', ...links);
  if (mailText.trim()) lines.push('', mailText.trim());
  lines.push('', 'Kind regards');
  return { subject: `Your order ${order.id} is on its way`, text: `${lines.join('\n')}\n` };
}
