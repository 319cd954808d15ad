/**
 * The driver's requests to a worker and the worker's replies: a JSON body and, where one is needed, a
 * binary attachment (a typed array's bytes), in one NATS message. Attachments larger than what one
 * message may carry go through the run's object store instead (see natsOwners.ts).
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Envelope {
  readonly body: Record<string, unknown>;
  readonly attachment: Uint8Array;
}

/** [u32 body length][body JSON][attachment]. */
export function seal(body: Record<string, unknown>, attachment: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = encoder.encode(JSON.stringify(body));
  const out = new Uint8Array(4 + json.length + attachment.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  out.set(attachment, 4 + json.length);
  return out;
}

export function open(data: Uint8Array): Envelope {
  const n = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
  return { body: JSON.parse(decoder.decode(data.subarray(4, 4 + n))) as Record<string, unknown>, attachment: new Uint8Array(data.subarray(4 + n)) };
}

/** A typed array's bytes, and back (copied by the constructor, so aligned whatever the message's offset: a Buffer's slice is a view). */
export function bytesOf(a: Float64Array | Uint32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export function float64sOf(b: Uint8Array): Float64Array {
  return new Float64Array(new Uint8Array(b).buffer);
}

export function uint32sOf(b: Uint8Array): Uint32Array {
  return new Uint32Array(new Uint8Array(b).buffer);
}
