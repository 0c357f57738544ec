-- Issue 29 item 5, decision 0065: a default message written for a negative value ('Price change
-- above -5%', which the thresholds editor wrote while the value field held -5 on the way to 0.1)
-- was not recognised as a default, so it stopped following its value and was saved beside 0.1.
-- Migration 0005's rewrite, with the patterns now taking a sign as contracts/alert-thresholds.ts
-- DEFAULT_MESSAGE_PATTERNS do: every default becomes the default of its threshold's type and
-- value (stored values are 0 or more); the users' own words are left as they are.
UPDATE "agents" AS a
SET "config" = jsonb_set(a."config", '{notifications,thresholds}', (
  SELECT jsonb_agg(
    CASE
      WHEN btrim(e.t->>'message') ~ '^(Price change above -?[0-9][0-9,]*(\.[0-9]+)?%|Volume spike above -?[0-9][0-9,]*(\.[0-9]+)?% of average|Volatility above -?[0-9][0-9,]*(\.[0-9]+)?% of the price|Volume above -?[0-9][0-9,]*(\.[0-9]+)?% of average|Price moved more than -?[0-9][0-9,]*(\.[0-9]+)?%|Volume spiked above -?[0-9][0-9,]*(\.[0-9]+)?% of average|Volatility above -?[0-9][0-9,]*(\.[0-9]+)?x its average|Price change alert)$'
        AND jsonb_typeof(e.t->'value') = 'number'
        AND e.t->>'type' IN ('priceChange', 'volumeSpike', 'volatilityAlert', 'volumeAlert')
      THEN jsonb_set(e.t, '{message}', to_jsonb(
        CASE e.t->>'type'
          WHEN 'priceChange' THEN 'Price change above ' || v.text || '%'
          WHEN 'volumeSpike' THEN 'Volume spike above ' || v.text || '% of average'
          WHEN 'volatilityAlert' THEN 'Volatility above ' || v.text || '% of the price'
          ELSE 'Volume above ' || v.text || '% of average'
        END))
      ELSE e.t
    END
    ORDER BY e.ord)
  FROM jsonb_array_elements(a."config"->'notifications'->'thresholds') WITH ORDINALITY AS e(t, ord)
  CROSS JOIN LATERAL (
    SELECT CASE WHEN jsonb_typeof(e.t->'value') = 'number' THEN rtrim(to_char(round((e.t->>'value')::numeric, 4), 'FM999,999,990.9999'), '.') END AS text
  ) AS v
))
WHERE jsonb_typeof(a."config"->'notifications'->'thresholds') = 'array'
  AND jsonb_array_length(a."config"->'notifications'->'thresholds') > 0
  AND a."config"->'notifications'->'thresholds' @? '$[*] ? (@.message like_regex "-[0-9]")';
