/** The spec's shared helpers: FNV-1a 64, the order-free digest and SplitMix64 bytes, in 32-bit halves. */

// 64-bit arithmetic is done on (high, low) pairs of uint32 numbers: BigInt would be
// correct too, but it allocates per operation and makes the seeded paths 20x slower.

const TWO_POW_32 = 4294967296;
const FNV_OFFSET_HIGH = 0xcbf29ce4;
const FNV_OFFSET_LOW = 0x84222325;
const FNV_PRIME_LOW = 0x1b3; // the prime is 2^40 + 0x1b3

/** FNV-1a 64 of bytes[start, end) (any array of byte values); returns [high, low]. */
export function fnv1a64Parts(bytes, start = 0, end = bytes.length) {
  let high = FNV_OFFSET_HIGH;
  let low = FNV_OFFSET_LOW;
  for (let i = start; i < end; i++) {
    low = (low ^ bytes[i]) >>> 0;
    const lowProduct = low * FNV_PRIME_LOW; // < 2^41, exact in a double
    high = (Math.imul(high, FNV_PRIME_LOW) + Math.floor(lowProduct / TWO_POW_32) + (low << 8)) >>> 0;
    low = lowProduct >>> 0;
  }
  return [high, low];
}

/** FNV-1a 64 of an ASCII string's character codes; returns [high, low]. */
export function fnv1a64AsciiParts(text) {
  let high = FNV_OFFSET_HIGH;
  let low = FNV_OFFSET_LOW;
  for (let i = 0; i < text.length; i++) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    const lowProduct = low * FNV_PRIME_LOW;
    high = (Math.imul(high, FNV_PRIME_LOW) + Math.floor(lowProduct / TWO_POW_32) + (low << 8)) >>> 0;
    low = lowProduct >>> 0;
  }
  return [high, low];
}

/** FNV-1a 64 as 16 lower-case hex digits. */
export function fnv1a64Hex(bytes) {
  const [high, low] = fnv1a64Parts(bytes);
  return toHex(high, low);
}

function toHex(high, low) {
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/** The order-free digest: a running sum mod 2^64 of FNV-1a 64 values, mergeable across workers. */
export class OrderFreeDigest {
  constructor(high = 0, low = 0) {
    this.high = high;
    this.low = low;
  }

  addParts(high, low) {
    let sumLow = this.low + low;
    let carry = 0;
    if (sumLow >= TWO_POW_32) {
      sumLow -= TWO_POW_32;
      carry = 1;
    }
    this.low = sumLow;
    this.high = (this.high + high + carry) >>> 0;
  }

  addBytes(bytes, start = 0, end = bytes.length) {
    const [high, low] = fnv1a64Parts(bytes, start, end);
    this.addParts(high, low);
  }

  addAscii(text) {
    const [high, low] = fnv1a64AsciiParts(text);
    this.addParts(high, low);
  }

  merge(other) {
    this.addParts(other.high, other.low);
  }

  hex() {
    return toHex(this.high, this.low);
  }
}

// (a * b) mod 2^64 for a = (aHigh, aLow), b = (bHigh, bLow); 16-bit limbs keep every product exact.
function multiply64(aHigh, aLow, bHigh, bLow) {
  const a0 = aLow & 0xffff;
  const a1 = aLow >>> 16;
  const b0 = bLow & 0xffff;
  const b1 = bLow >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const middle = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const low = (((middle & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const lowTimesLowHigh = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (middle >>> 16);
  const high = (lowTimesLowHigh + Math.imul(aHigh, bLow) + Math.imul(aLow, bHigh)) >>> 0;
  return [high, low];
}

function add64(aHigh, aLow, bHigh, bLow) {
  const sumLow = aLow + bLow;
  const carry = sumLow >= TWO_POW_32 ? 1 : 0;
  return [(aHigh + bHigh + carry) >>> 0, sumLow >>> 0];
}

const GOLDEN_HIGH = 0x9e3779b9;
const GOLDEN_LOW = 0x7f4a7c15;
const MIX1_HIGH = 0xbf58476d;
const MIX1_LOW = 0x1ce4e5b9;
const MIX2_HIGH = 0x94d049bb;
const MIX2_LOW = 0x133111eb;

/** Writes SplitMix64 bytes(seed, index, length) into target at offset; seed is a number or BigInt. */
export function splitmix64Fill(seed, index, target, offset, length) {
  const seedBig = BigInt.asUintN(64, BigInt(seed));
  const start = BigInt.asUintN(64, seedBig + BigInt(index) * 0x9e3779b97f4a7c15n);
  let stateHigh = Number(start >> 32n);
  let stateLow = Number(start & 0xffffffffn);
  let written = 0;
  while (written < length) {
    [stateHigh, stateLow] = add64(stateHigh, stateLow, GOLDEN_HIGH, GOLDEN_LOW);
    let zHigh = stateHigh;
    let zLow = stateLow;
    // z ^= z >> 30
    [zHigh, zLow] = multiply64(zHigh ^ (zHigh >>> 30), (zLow ^ ((zLow >>> 30) | (zHigh << 2))) >>> 0,
      MIX1_HIGH, MIX1_LOW);
    // z ^= z >> 27
    [zHigh, zLow] = multiply64(zHigh ^ (zHigh >>> 27), (zLow ^ ((zLow >>> 27) | (zHigh << 5))) >>> 0,
      MIX2_HIGH, MIX2_LOW);
    // z ^= z >> 31
    zLow = (zLow ^ ((zLow >>> 31) | (zHigh << 1))) >>> 0;
    zHigh = (zHigh ^ (zHigh >>> 31)) >>> 0;
    for (let byte = 0; byte < 8 && written < length; byte++, written++) {
      const word = byte < 4 ? zLow : zHigh;
      target[offset + written] = (word >>> ((byte & 3) * 8)) & 0xff;
    }
  }
}

/** SplitMix64 bytes(seed, index, length) as a new Uint8Array. */
export function splitmix64Bytes(seed, index, length) {
  const bytes = new Uint8Array(length);
  splitmix64Fill(seed, index, bytes, 0, length);
  return bytes;
}
