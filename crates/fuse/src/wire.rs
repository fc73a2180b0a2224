//! The protocol-buffer wire format, field by field.
//!
//! `fuse` decodes only what it rewrites (nodes, initializer headers, value names) and copies
//! every other byte of the model as it was read: fields this crate does not know (doc strings,
//! metadata, functions, training info, fields newer than this code) survive unchanged.

use prost::encoding::{decode_varint, encode_varint};
use std::ops::Range;

/// Wire type of a varint field.
pub(crate) const VARINT: u8 = 0;
/// Wire type of a length-delimited field (strings, bytes, messages, packed repeated scalars).
pub(crate) const LEN: u8 = 2;

/// One field of an encoded message, located in the buffer it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// Field number.
    pub number: u32,
    /// Wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    pub wire: u8,
    /// The whole field, key included (absolute offsets).
    pub span: Range<usize>,
    /// The payload: the bytes of a length-delimited field, the encoded value otherwise
    /// (absolute offsets).
    pub value: Range<usize>,
    /// The value of a varint field (0 for other wire types).
    pub varint: u64,
}

/// The fields of the message `buf[range]`, in order; offsets are into `buf`.
pub(crate) fn fields(buf: &[u8], range: Range<usize>) -> Result<Vec<Field>, String> {
    let mut out = Vec::new();
    let end = range.end;
    let mut pos = range.start;
    while pos < end {
        let start = pos;
        let mut rest = &buf[pos..end];
        let before = rest.len();
        let key = decode_varint(&mut rest).map_err(|e| format!("at byte {pos}: {e}"))?;
        pos += before - rest.len();
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("at byte {start}: invalid field number {}", key >> 3))?;
        let wire = (key & 7) as u8;
        let (value, varint) = match wire {
            0 => {
                let mut rest = &buf[pos..end];
                let before = rest.len();
                let v = decode_varint(&mut rest).map_err(|e| format!("at byte {pos}: {e}"))?;
                let len = before - rest.len();
                (pos..pos + len, v)
            }
            1 | 5 => {
                let len = if wire == 1 { 8 } else { 4 };
                if end - pos < len {
                    return Err(format!(
                        "at byte {pos}: truncated fixed-width field {number}"
                    ));
                }
                (pos..pos + len, 0)
            }
            2 => {
                let mut rest = &buf[pos..end];
                let before = rest.len();
                let len = decode_varint(&mut rest).map_err(|e| format!("at byte {pos}: {e}"))?;
                pos += before - rest.len();
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= end - pos)
                    .ok_or_else(|| {
                        format!("at byte {pos}: field {number} is longer ({len}) than its message")
                    })?;
                (pos..pos + len, 0)
            }
            other => {
                return Err(format!(
                    "at byte {start}: field {number} has unsupported wire type {other}"
                ))
            }
        };
        pos = value.end;
        out.push(Field {
            number,
            wire,
            span: start..pos,
            value,
            varint,
        });
    }
    Ok(out)
}

/// Appends a length-delimited field.
pub(crate) fn put_len(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    encode_varint((u64::from(number) << 3) | u64::from(LEN), out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// Appends a varint field.
pub(crate) fn put_varint(out: &mut Vec<u8>, number: u32, v: u64) {
    encode_varint((u64::from(number) << 3) | u64::from(VARINT), out);
    encode_varint(v, out);
}

/// The varints of a repeated integer field: one unpacked varint field, or a packed run.
pub(crate) fn varints(buf: &[u8], f: &Field) -> Result<Vec<u64>, String> {
    match f.wire {
        VARINT => Ok(vec![f.varint]),
        LEN => {
            let mut rest = &buf[f.value.clone()];
            let mut out = Vec::new();
            while !rest.is_empty() {
                out.push(decode_varint(&mut rest).map_err(|e| e.to_string())?);
            }
            Ok(out)
        }
        w => Err(format!(
            "field {} has wire type {w}, not a varint",
            f.number
        )),
    }
}

/// The UTF-8 string of a length-delimited field.
pub(crate) fn string(buf: &[u8], f: &Field) -> Result<String, String> {
    if f.wire != LEN {
        return Err(format!("field {} is not length-delimited", f.number));
    }
    String::from_utf8(buf[f.value.clone()].to_vec())
        .map_err(|_| format!("field {} is not UTF-8", f.number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_of_mixed_fields() {
        let mut buf = Vec::new();
        put_varint(&mut buf, 1, 300);
        put_len(&mut buf, 2, b"abc");
        buf.extend_from_slice(&[0x1d, 1, 2, 3, 4]); // field 3, fixed32
        put_len(&mut buf, 4, &[0x01, 0xac, 0x02]); // packed varints 1, 300
        let fs = fields(&buf, 0..buf.len()).unwrap();
        assert_eq!(fs.len(), 4);
        assert_eq!((fs[0].number, fs[0].wire, fs[0].varint), (1, VARINT, 300));
        assert_eq!(string(&buf, &fs[1]).unwrap(), "abc");
        assert_eq!((fs[2].number, fs[2].wire, fs[2].value.len()), (3, 5, 4));
        assert_eq!(varints(&buf, &fs[3]).unwrap(), vec![1, 300]);
        let joined: Vec<u8> = fs
            .iter()
            .flat_map(|f| buf[f.span.clone()].to_vec())
            .collect();
        assert_eq!(joined, buf);
    }

    #[test]
    fn truncated_input_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        put_len(&mut buf, 2, b"abcdef");
        for cut in 0..buf.len() {
            let r = fields(&buf[..cut], 0..cut);
            assert!(cut == 0 || r.is_err(), "cut {cut}: {r:?}");
        }
        assert!(fields(&[0x00], 0..1).is_err(), "field number 0");
        assert!(fields(&[0x0b], 0..1).is_err(), "group wire type");
    }
}
