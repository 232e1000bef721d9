/** True for a plausible e-mail address (one @, a dotted domain, no spaces), at most 254 characters. */
export function isEmail(value: string): boolean {
  const v = value.trim();
  return v.length <= 254 && /^[^\s@<>()",;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(v);
}

/** True for an absolute http or https URL of at most 2048 characters. */
export function isHttpUrl(value: string): boolean {
  const v = value.trim();
  if (v.length > 2048) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}
