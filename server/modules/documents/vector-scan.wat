;; The int8 scan of the vector index (docs/decisions/0087), in WebAssembly SIMD: the same integer
;; dot products vector-index.ts computed four codes a 32-bit word at a time in JavaScript, sixteen
;; codes per instruction here. vector-scan.ts holds these bytes (built with wabt's wat2wasm,
;; `--enable-simd`, version 1.0.39); change both together.
(module
  (memory (export "memory") 1)
  ;; scores(q, codes, rows, stride, out): out[r] = sum over j of q[j] * codes[r * stride + j], for
  ;; r below rows. codes: int8 rows of `stride` bytes (a multiple of 16, above 0); q: the question's
  ;; codes as int16, `stride` of them; out: an int32 per row. 512 dimensions x 127 x 127 stays far
  ;; inside an int32, and i32x4.dot_i16x8_s cannot overflow on int8 inputs.
  (func (export "scores") (param $q i32) (param $codes i32) (param $rows i32) (param $stride i32) (param $out i32)
    (local $r i32) (local $p i32) (local $end i32) (local $qp i32) (local $acc v128) (local $v v128)
    (local.set $p (local.get $codes))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $end (i32.add (local.get $p) (local.get $stride)))
        (local.set $qp (local.get $q))
        (loop $chunk
          (local.set $v (v128.load (local.get $p)))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $qp)))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $qp)))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 32)))
          (br_if $chunk (i32.lt_u (local.get $p) (local.get $end))))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))))
