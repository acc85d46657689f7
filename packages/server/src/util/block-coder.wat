;; The block answer's two costly steps in WebAssembly (util/block-coder.ts loads it; docs/decisions.md "The block
;; request: the cipher and the coder in WebAssembly"): XXTEA over a chapter's words, and the deflate coding of the
;; answer's text (one literal-only block with the fixed code of util/base64-gzip.ts), base64 made from the
;; ciphertext as it is coded. Assembled into block-coder.wasm with wabt's wat2wasm; a test reassembles it and
;; compares the bytes.
;;
;; Memory, laid out by block-coder.ts: bytes 0-16383 CODE2, the code of two base64 digits (a 12-bit value) as
;; code | length << 16, the first digit's code in the low bits; 16384-24575 CHARS2, the same two digits as text
;; (two bytes, the first digit's first); 24576-25603 TABLE, the code of each byte and of the end of block (256) as
;; code | length << 16; 25616-25631 the four key words. Data from 32768 on.
(module
  (memory (export "memory") 1)
  ;; where the coding stands between calls: the bits not yet written (fewer than 32), the output and text cursors
  (global $acc (mut i64) (i64.const 0))
  (global $nbits (mut i32) (i32.const 0))
  (global $o (mut i32) (i32.const 0))
  (global $t (mut i32) (i32.const 0))

  ;; XXTEA (the byte-string form of xxtea-node) over $len >= 2 little-endian words at $v, in place, with the key's
  ;; four words at 25616: 6 + 52 / $len rounds; word p takes key word (p & 3) ^ e.
  (func (export "encrypt") (param $v i32) (param $len i32)
    (local $rounds i32) (local $sum i32) (local $e i32) (local $p i32) (local $ptr i32) (local $end i32)
    (local $x i32) (local $y i32) (local $z i32) (local $kw i32)
    (local.set $rounds (i32.add (i32.const 6) (i32.div_u (i32.const 52) (local.get $len))))
    (local.set $end (i32.add (local.get $v) (i32.shl (i32.sub (local.get $len) (i32.const 1)) (i32.const 2))))
    (local.set $z (i32.load (local.get $end)))
    (loop $round
      (local.set $sum (i32.add (local.get $sum) (i32.const 0x9e3779b9)))
      (local.set $e (i32.and (i32.shr_u (local.get $sum) (i32.const 2)) (i32.const 3)))
      (local.set $ptr (local.get $v))
      (local.set $p (i32.const 0))
      ;; the word about to change, read once: each step's neighbour is the next step's own word
      (local.set $x (i32.load (local.get $v)))
      (block $last
        (loop $step
          (br_if $last (i32.ge_u (local.get $ptr) (local.get $end)))
          (local.set $y (i32.load offset=4 (local.get $ptr)))
          (local.set $kw (i32.load offset=25616
            (i32.shl (i32.xor (i32.and (local.get $p) (i32.const 3)) (local.get $e)) (i32.const 2))))
          (local.set $z (i32.add (local.get $x)
            (i32.xor
              (i32.add
                (i32.xor (i32.shr_u (local.get $z) (i32.const 5)) (i32.shl (local.get $y) (i32.const 2)))
                (i32.xor (i32.shr_u (local.get $y) (i32.const 3)) (i32.shl (local.get $z) (i32.const 4))))
              (i32.add
                (i32.xor (local.get $sum) (local.get $y))
                (i32.xor (local.get $kw) (local.get $z))))))
          (i32.store (local.get $ptr) (local.get $z))
          (local.set $x (local.get $y))
          (local.set $ptr (i32.add (local.get $ptr) (i32.const 4)))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $step)))
      ;; the last word: its neighbour is word 0, already changed this round
      (local.set $y (i32.load (local.get $v)))
      (local.set $kw (i32.load offset=25616
        (i32.shl (i32.xor (i32.and (local.get $p) (i32.const 3)) (local.get $e)) (i32.const 2))))
      (local.set $z (i32.add (local.get $x)
        (i32.xor
          (i32.add
            (i32.xor (i32.shr_u (local.get $z) (i32.const 5)) (i32.shl (local.get $y) (i32.const 2)))
            (i32.xor (i32.shr_u (local.get $y) (i32.const 3)) (i32.shl (local.get $z) (i32.const 4))))
          (i32.add
            (i32.xor (local.get $sum) (local.get $y))
            (i32.xor (local.get $kw) (local.get $z))))))
      (i32.store (local.get $end) (local.get $z))
      (br_if $round (local.tee $rounds (i32.sub (local.get $rounds) (i32.const 1))))))

  ;; Starts a coding: output at $o (the headers already there), text at $t, with $nbits bits already waiting.
  (func (export "begin") (param $o i32) (param $t i32) (param $acc i32) (param $nbits i32)
    (global.set $o (local.get $o))
    (global.set $t (local.get $t))
    (global.set $acc (i64.extend_i32_u (local.get $acc)))
    (global.set $nbits (local.get $nbits)))

  ;; Writes the standard padded base64 of the $len bytes at $src at the text cursor and codes it: three bytes are
  ;; two lookups of two digits' code and two of their text.
  (func (export "base64") (param $src i32) (param $len i32)
    (local $t i32) (local $end i32) (local $acc i64) (local $nbits i32) (local $o i32)
    (local $g i32) (local $hi i32) (local $lo i32) (local $e i32) (local $rest i32)
    (local.set $t (global.get $t))
    (local.set $acc (global.get $acc))
    (local.set $nbits (global.get $nbits))
    (local.set $o (global.get $o))
    (local.set $rest (i32.rem_u (local.get $len) (i32.const 3)))
    (local.set $end (i32.add (local.get $src) (i32.sub (local.get $len) (local.get $rest))))
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $g (i32.or (i32.or
          (i32.shl (i32.load8_u (local.get $src)) (i32.const 16))
          (i32.shl (i32.load8_u offset=1 (local.get $src)) (i32.const 8)))
          (i32.load8_u offset=2 (local.get $src))))
        (local.set $hi (i32.shr_u (local.get $g) (i32.const 12)))
        (local.set $lo (i32.and (local.get $g) (i32.const 4095)))
        (i32.store (local.get $t) (i32.or
          (i32.load16_u offset=16384 (i32.shl (local.get $hi) (i32.const 1)))
          (i32.shl (i32.load16_u offset=16384 (i32.shl (local.get $lo) (i32.const 1))) (i32.const 16))))
        (local.set $e (i32.load (i32.shl (local.get $hi) (i32.const 2))))
        (local.set $acc (i64.or (local.get $acc)
          (i64.shl (i64.extend_i32_u (i32.and (local.get $e) (i32.const 0xffff))) (i64.extend_i32_u (local.get $nbits)))))
        (local.set $nbits (i32.add (local.get $nbits) (i32.shr_u (local.get $e) (i32.const 16))))
        (local.set $e (i32.load (i32.shl (local.get $lo) (i32.const 2))))
        (local.set $acc (i64.or (local.get $acc)
          (i64.shl (i64.extend_i32_u (i32.and (local.get $e) (i32.const 0xffff))) (i64.extend_i32_u (local.get $nbits)))))
        (local.set $nbits (i32.add (local.get $nbits) (i32.shr_u (local.get $e) (i32.const 16))))
        (if (i32.ge_u (local.get $nbits) (i32.const 32))
          (then
            (i32.store (local.get $o) (i32.wrap_i64 (local.get $acc)))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (local.set $acc (i64.shr_u (local.get $acc) (i64.const 32)))
            (local.set $nbits (i32.sub (local.get $nbits) (i32.const 32)))))
        (local.set $src (i32.add (local.get $src) (i32.const 3)))
        (local.set $t (i32.add (local.get $t) (i32.const 4)))
        (br $group)))
    (global.set $acc (local.get $acc))
    (global.set $nbits (local.get $nbits))
    (global.set $o (local.get $o))
    (global.set $t (local.get $t))
    ;; the last one or two bytes: two or three digits and the padding, written as text and coded as bytes
    (if (local.get $rest)
      (then
        (local.set $g (i32.shl (i32.load8_u (local.get $src)) (i32.const 16)))
        (if (i32.eq (local.get $rest) (i32.const 2))
          (then (local.set $g (i32.or (local.get $g) (i32.shl (i32.load8_u offset=1 (local.get $src)) (i32.const 8))))))
        (i32.store16 (local.get $t) (i32.load16_u offset=16384 (i32.shl (i32.shr_u (local.get $g) (i32.const 12)) (i32.const 1))))
        (i32.store16 offset=2 (local.get $t) (i32.const 0x3d3d))
        (if (i32.eq (local.get $rest) (i32.const 2))
          (then (i32.store8 offset=2 (local.get $t)
            (i32.load8_u offset=16384 (i32.shl (i32.and (local.get $g) (i32.const 4095)) (i32.const 1))))))
        (call $bytesAt (i32.const 4)))))

  ;; Codes the $len bytes of text the caller has put at the text cursor, a byte at a time.
  (func $bytesAt (export "bytes") (param $len i32)
    (local $t i32) (local $end i32) (local $acc i64) (local $nbits i32) (local $o i32) (local $e i32)
    (local.set $t (global.get $t))
    (local.set $acc (global.get $acc))
    (local.set $nbits (global.get $nbits))
    (local.set $o (global.get $o))
    (local.set $end (i32.add (local.get $t) (local.get $len)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $t) (local.get $end)))
        (local.set $e (i32.load offset=24576 (i32.shl (i32.load8_u (local.get $t)) (i32.const 2))))
        (local.set $acc (i64.or (local.get $acc)
          (i64.shl (i64.extend_i32_u (i32.and (local.get $e) (i32.const 0xffff))) (i64.extend_i32_u (local.get $nbits)))))
        (local.set $nbits (i32.add (local.get $nbits) (i32.shr_u (local.get $e) (i32.const 16))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (if (i32.ge_u (local.get $nbits) (i32.const 32))
          (then
            (i32.store (local.get $o) (i32.wrap_i64 (local.get $acc)))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (local.set $acc (i64.shr_u (local.get $acc) (i64.const 32)))
            (local.set $nbits (i32.sub (local.get $nbits) (i32.const 32)))))
        (br $byte)))
    (global.set $t (local.get $t))
    (global.set $acc (local.get $acc))
    (global.set $nbits (local.get $nbits))
    (global.set $o (local.get $o)))

  ;; Ends the block (the end-of-block code) and writes the last bits; returns the end of the output.
  (func (export "finish") (result i32)
    (local $acc i64) (local $nbits i32) (local $o i32) (local $e i32)
    (local.set $e (i32.load offset=24576 (i32.const 1024)))
    (local.set $nbits (global.get $nbits))
    (local.set $o (global.get $o))
    (local.set $acc (i64.or (global.get $acc)
      (i64.shl (i64.extend_i32_u (i32.and (local.get $e) (i32.const 0xffff))) (i64.extend_i32_u (local.get $nbits)))))
    (local.set $nbits (i32.add (local.get $nbits) (i32.shr_u (local.get $e) (i32.const 16))))
    (block $done
      (loop $byte
        (br_if $done (i32.le_s (local.get $nbits) (i32.const 0)))
        (i32.store8 (local.get $o) (i32.wrap_i64 (local.get $acc)))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $acc (i64.shr_u (local.get $acc) (i64.const 8)))
        (local.set $nbits (i32.sub (local.get $nbits) (i32.const 8)))
        (br $byte)))
    (global.set $o (local.get $o))
    (local.get $o))

  ;; The text cursor: where the text written so far ends.
  (func (export "textEnd") (result i32) (global.get $t)))
