/** RFC 1123 label: lower-case letters, digits and '-', starting and ending alphanumeric, at most 63. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const DNS_LABEL_MESSAGE =
  'must be a DNS label: lower-case letters, digits and "-", 1 to 63 characters, starting and ending with a letter or digit';
