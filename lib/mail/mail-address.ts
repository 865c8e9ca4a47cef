/**
 * An address a mail can be sent to: one mailbox, local part @ a dotted domain, no blanks, angle
 * brackets or list separators (which would make a header of several). What send_mit, the event
 * handlers' mail action and the sender's Reply-To accept alike.
 */
export const mailAddress = /^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/;
