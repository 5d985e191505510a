--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: SCHEMA "public"; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON SCHEMA "public" IS 'standard public schema';


--
-- Name: runs_rollup_v4(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION "public"."runs_rollup_v4"() RETURNS "trigger"
    LANGUAGE "plpgsql"
    AS $$
BEGIN
IF TG_OP <> 'INSERT' THEN
INSERT INTO cost_rollups (grain, day, repository_id, reviewer_id, runs, succeeded, failed, cancelled, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, findings_blocker, findings_major, findings_minor, findings_nit, h00, h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20, h21, h22, h23, h24, h25, h26, h27, h28, h29, h30, h31, h32, h33, h34, h35, h36, h37, h38, h39, h40, h41, h42, h43, h44, h45, h46, h47)
SELECT cell.grain, CASE cell.g WHEN 'd' THEN to_char(OLD.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') WHEN 'w' THEN to_char(date_trunc('week', OLD.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') ELSE to_char(date_trunc('month', OLD.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') END, CASE WHEN cell.r = 1 THEN OLD.repository_runs ELSE 0 END, CASE WHEN cell.v = 1 THEN OLD.reviewer_runs ELSE 0 END, -(1), -(CASE WHEN OLD.status = 'succeeded' THEN 1 ELSE 0 END), -(CASE WHEN OLD.status = 'failed' THEN 1 ELSE 0 END), -(CASE WHEN OLD.status = 'cancelled' THEN 1 ELSE 0 END), -(OLD.cost_usd), -(OLD.input_tokens), -(OLD.output_tokens), -(OLD.cache_read_tokens), -(OLD.cache_write_tokens), -(OLD.findings_blocker), -(OLD.findings_major), -(OLD.findings_minor), -(OLD.findings_nit), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms <= 1000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1000 AND OLD.duration_ms <= 1189 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1189 AND OLD.duration_ms <= 1414 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1414 AND OLD.duration_ms <= 1682 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1682 AND OLD.duration_ms <= 2000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2000 AND OLD.duration_ms <= 2378 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2378 AND OLD.duration_ms <= 2828 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2828 AND OLD.duration_ms <= 3364 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 3364 AND OLD.duration_ms <= 4000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 4000 AND OLD.duration_ms <= 4757 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 4757 AND OLD.duration_ms <= 5657 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 5657 AND OLD.duration_ms <= 6727 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 6727 AND OLD.duration_ms <= 8000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 8000 AND OLD.duration_ms <= 9514 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 9514 AND OLD.duration_ms <= 11314 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 11314 AND OLD.duration_ms <= 13454 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 13454 AND OLD.duration_ms <= 16000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 16000 AND OLD.duration_ms <= 19027 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 19027 AND OLD.duration_ms <= 22627 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 22627 AND OLD.duration_ms <= 26909 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 26909 AND OLD.duration_ms <= 32000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 32000 AND OLD.duration_ms <= 38055 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 38055 AND OLD.duration_ms <= 45255 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 45255 AND OLD.duration_ms <= 53817 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 53817 AND OLD.duration_ms <= 64000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 64000 AND OLD.duration_ms <= 76109 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 76109 AND OLD.duration_ms <= 90510 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 90510 AND OLD.duration_ms <= 107635 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 107635 AND OLD.duration_ms <= 128000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 128000 AND OLD.duration_ms <= 152219 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 152219 AND OLD.duration_ms <= 181019 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 181019 AND OLD.duration_ms <= 215269 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 215269 AND OLD.duration_ms <= 256000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 256000 AND OLD.duration_ms <= 304437 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 304437 AND OLD.duration_ms <= 362039 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 362039 AND OLD.duration_ms <= 430539 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 430539 AND OLD.duration_ms <= 512000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 512000 AND OLD.duration_ms <= 608874 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 608874 AND OLD.duration_ms <= 724077 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 724077 AND OLD.duration_ms <= 861078 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 861078 AND OLD.duration_ms <= 1024000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1024000 AND OLD.duration_ms <= 1217748 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1217748 AND OLD.duration_ms <= 1448155 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1448155 AND OLD.duration_ms <= 1722156 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 1722156 AND OLD.duration_ms <= 2048000 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2048000 AND OLD.duration_ms <= 2435496 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2435496 AND OLD.duration_ms <= 2896309 THEN 1 ELSE 0 END), -(CASE WHEN OLD.status IN ('succeeded', 'failed') AND OLD.duration_ms > 0 AND OLD.duration_ms > 2896309 THEN 1 ELSE 0 END)
FROM (SELECT 'm' AS g, 'mt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'w' AS g, 'wt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'd' AS g, 'dt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'm' AS g, 'mv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'w' AS g, 'wv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'd' AS g, 'dv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'm' AS g, 'mr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'w' AS g, 'wr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'd' AS g, 'dr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'm' AS g, 'm' AS grain, 1 AS r, 1 AS v UNION ALL SELECT 'w' AS g, 'w' AS grain, 1 AS r, 1 AS v UNION ALL SELECT 'd' AS g, 'd' AS grain, 1 AS r, 1 AS v) AS cell WHERE true
ON CONFLICT (grain, day, repository_id, reviewer_id) DO UPDATE SET runs = cost_rollups.runs + excluded.runs, succeeded = cost_rollups.succeeded + excluded.succeeded, failed = cost_rollups.failed + excluded.failed, cancelled = cost_rollups.cancelled + excluded.cancelled, cost_usd = cost_rollups.cost_usd + excluded.cost_usd, input_tokens = cost_rollups.input_tokens + excluded.input_tokens, output_tokens = cost_rollups.output_tokens + excluded.output_tokens, cache_read_tokens = cost_rollups.cache_read_tokens + excluded.cache_read_tokens, cache_write_tokens = cost_rollups.cache_write_tokens + excluded.cache_write_tokens, findings_blocker = cost_rollups.findings_blocker + excluded.findings_blocker, findings_major = cost_rollups.findings_major + excluded.findings_major, findings_minor = cost_rollups.findings_minor + excluded.findings_minor, findings_nit = cost_rollups.findings_nit + excluded.findings_nit, h00 = cost_rollups.h00 + excluded.h00, h01 = cost_rollups.h01 + excluded.h01, h02 = cost_rollups.h02 + excluded.h02, h03 = cost_rollups.h03 + excluded.h03, h04 = cost_rollups.h04 + excluded.h04, h05 = cost_rollups.h05 + excluded.h05, h06 = cost_rollups.h06 + excluded.h06, h07 = cost_rollups.h07 + excluded.h07, h08 = cost_rollups.h08 + excluded.h08, h09 = cost_rollups.h09 + excluded.h09, h10 = cost_rollups.h10 + excluded.h10, h11 = cost_rollups.h11 + excluded.h11, h12 = cost_rollups.h12 + excluded.h12, h13 = cost_rollups.h13 + excluded.h13, h14 = cost_rollups.h14 + excluded.h14, h15 = cost_rollups.h15 + excluded.h15, h16 = cost_rollups.h16 + excluded.h16, h17 = cost_rollups.h17 + excluded.h17, h18 = cost_rollups.h18 + excluded.h18, h19 = cost_rollups.h19 + excluded.h19, h20 = cost_rollups.h20 + excluded.h20, h21 = cost_rollups.h21 + excluded.h21, h22 = cost_rollups.h22 + excluded.h22, h23 = cost_rollups.h23 + excluded.h23, h24 = cost_rollups.h24 + excluded.h24, h25 = cost_rollups.h25 + excluded.h25, h26 = cost_rollups.h26 + excluded.h26, h27 = cost_rollups.h27 + excluded.h27, h28 = cost_rollups.h28 + excluded.h28, h29 = cost_rollups.h29 + excluded.h29, h30 = cost_rollups.h30 + excluded.h30, h31 = cost_rollups.h31 + excluded.h31, h32 = cost_rollups.h32 + excluded.h32, h33 = cost_rollups.h33 + excluded.h33, h34 = cost_rollups.h34 + excluded.h34, h35 = cost_rollups.h35 + excluded.h35, h36 = cost_rollups.h36 + excluded.h36, h37 = cost_rollups.h37 + excluded.h37, h38 = cost_rollups.h38 + excluded.h38, h39 = cost_rollups.h39 + excluded.h39, h40 = cost_rollups.h40 + excluded.h40, h41 = cost_rollups.h41 + excluded.h41, h42 = cost_rollups.h42 + excluded.h42, h43 = cost_rollups.h43 + excluded.h43, h44 = cost_rollups.h44 + excluded.h44, h45 = cost_rollups.h45 + excluded.h45, h46 = cost_rollups.h46 + excluded.h46, h47 = cost_rollups.h47 + excluded.h47;
END IF;
IF TG_OP <> 'DELETE' THEN
INSERT INTO cost_rollups (grain, day, repository_id, reviewer_id, runs, succeeded, failed, cancelled, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, findings_blocker, findings_major, findings_minor, findings_nit, h00, h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20, h21, h22, h23, h24, h25, h26, h27, h28, h29, h30, h31, h32, h33, h34, h35, h36, h37, h38, h39, h40, h41, h42, h43, h44, h45, h46, h47)
SELECT cell.grain, CASE cell.g WHEN 'd' THEN to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') WHEN 'w' THEN to_char(date_trunc('week', NEW.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') ELSE to_char(date_trunc('month', NEW.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') END, CASE WHEN cell.r = 1 THEN NEW.repository_runs ELSE 0 END, CASE WHEN cell.v = 1 THEN NEW.reviewer_runs ELSE 0 END, +(1), +(CASE WHEN NEW.status = 'succeeded' THEN 1 ELSE 0 END), +(CASE WHEN NEW.status = 'failed' THEN 1 ELSE 0 END), +(CASE WHEN NEW.status = 'cancelled' THEN 1 ELSE 0 END), +(NEW.cost_usd), +(NEW.input_tokens), +(NEW.output_tokens), +(NEW.cache_read_tokens), +(NEW.cache_write_tokens), +(NEW.findings_blocker), +(NEW.findings_major), +(NEW.findings_minor), +(NEW.findings_nit), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms <= 1000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1000 AND NEW.duration_ms <= 1189 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1189 AND NEW.duration_ms <= 1414 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1414 AND NEW.duration_ms <= 1682 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1682 AND NEW.duration_ms <= 2000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2000 AND NEW.duration_ms <= 2378 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2378 AND NEW.duration_ms <= 2828 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2828 AND NEW.duration_ms <= 3364 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 3364 AND NEW.duration_ms <= 4000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 4000 AND NEW.duration_ms <= 4757 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 4757 AND NEW.duration_ms <= 5657 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 5657 AND NEW.duration_ms <= 6727 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 6727 AND NEW.duration_ms <= 8000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 8000 AND NEW.duration_ms <= 9514 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 9514 AND NEW.duration_ms <= 11314 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 11314 AND NEW.duration_ms <= 13454 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 13454 AND NEW.duration_ms <= 16000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 16000 AND NEW.duration_ms <= 19027 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 19027 AND NEW.duration_ms <= 22627 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 22627 AND NEW.duration_ms <= 26909 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 26909 AND NEW.duration_ms <= 32000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 32000 AND NEW.duration_ms <= 38055 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 38055 AND NEW.duration_ms <= 45255 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 45255 AND NEW.duration_ms <= 53817 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 53817 AND NEW.duration_ms <= 64000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 64000 AND NEW.duration_ms <= 76109 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 76109 AND NEW.duration_ms <= 90510 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 90510 AND NEW.duration_ms <= 107635 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 107635 AND NEW.duration_ms <= 128000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 128000 AND NEW.duration_ms <= 152219 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 152219 AND NEW.duration_ms <= 181019 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 181019 AND NEW.duration_ms <= 215269 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 215269 AND NEW.duration_ms <= 256000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 256000 AND NEW.duration_ms <= 304437 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 304437 AND NEW.duration_ms <= 362039 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 362039 AND NEW.duration_ms <= 430539 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 430539 AND NEW.duration_ms <= 512000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 512000 AND NEW.duration_ms <= 608874 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 608874 AND NEW.duration_ms <= 724077 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 724077 AND NEW.duration_ms <= 861078 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 861078 AND NEW.duration_ms <= 1024000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1024000 AND NEW.duration_ms <= 1217748 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1217748 AND NEW.duration_ms <= 1448155 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1448155 AND NEW.duration_ms <= 1722156 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 1722156 AND NEW.duration_ms <= 2048000 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2048000 AND NEW.duration_ms <= 2435496 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2435496 AND NEW.duration_ms <= 2896309 THEN 1 ELSE 0 END), +(CASE WHEN NEW.status IN ('succeeded', 'failed') AND NEW.duration_ms > 0 AND NEW.duration_ms > 2896309 THEN 1 ELSE 0 END)
FROM (SELECT 'm' AS g, 'mt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'w' AS g, 'wt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'd' AS g, 'dt' AS grain, 0 AS r, 0 AS v UNION ALL SELECT 'm' AS g, 'mv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'w' AS g, 'wv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'd' AS g, 'dv' AS grain, 0 AS r, 1 AS v UNION ALL SELECT 'm' AS g, 'mr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'w' AS g, 'wr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'd' AS g, 'dr' AS grain, 1 AS r, 0 AS v UNION ALL SELECT 'm' AS g, 'm' AS grain, 1 AS r, 1 AS v UNION ALL SELECT 'w' AS g, 'w' AS grain, 1 AS r, 1 AS v UNION ALL SELECT 'd' AS g, 'd' AS grain, 1 AS r, 1 AS v) AS cell WHERE true
ON CONFLICT (grain, day, repository_id, reviewer_id) DO UPDATE SET runs = cost_rollups.runs + excluded.runs, succeeded = cost_rollups.succeeded + excluded.succeeded, failed = cost_rollups.failed + excluded.failed, cancelled = cost_rollups.cancelled + excluded.cancelled, cost_usd = cost_rollups.cost_usd + excluded.cost_usd, input_tokens = cost_rollups.input_tokens + excluded.input_tokens, output_tokens = cost_rollups.output_tokens + excluded.output_tokens, cache_read_tokens = cost_rollups.cache_read_tokens + excluded.cache_read_tokens, cache_write_tokens = cost_rollups.cache_write_tokens + excluded.cache_write_tokens, findings_blocker = cost_rollups.findings_blocker + excluded.findings_blocker, findings_major = cost_rollups.findings_major + excluded.findings_major, findings_minor = cost_rollups.findings_minor + excluded.findings_minor, findings_nit = cost_rollups.findings_nit + excluded.findings_nit, h00 = cost_rollups.h00 + excluded.h00, h01 = cost_rollups.h01 + excluded.h01, h02 = cost_rollups.h02 + excluded.h02, h03 = cost_rollups.h03 + excluded.h03, h04 = cost_rollups.h04 + excluded.h04, h05 = cost_rollups.h05 + excluded.h05, h06 = cost_rollups.h06 + excluded.h06, h07 = cost_rollups.h07 + excluded.h07, h08 = cost_rollups.h08 + excluded.h08, h09 = cost_rollups.h09 + excluded.h09, h10 = cost_rollups.h10 + excluded.h10, h11 = cost_rollups.h11 + excluded.h11, h12 = cost_rollups.h12 + excluded.h12, h13 = cost_rollups.h13 + excluded.h13, h14 = cost_rollups.h14 + excluded.h14, h15 = cost_rollups.h15 + excluded.h15, h16 = cost_rollups.h16 + excluded.h16, h17 = cost_rollups.h17 + excluded.h17, h18 = cost_rollups.h18 + excluded.h18, h19 = cost_rollups.h19 + excluded.h19, h20 = cost_rollups.h20 + excluded.h20, h21 = cost_rollups.h21 + excluded.h21, h22 = cost_rollups.h22 + excluded.h22, h23 = cost_rollups.h23 + excluded.h23, h24 = cost_rollups.h24 + excluded.h24, h25 = cost_rollups.h25 + excluded.h25, h26 = cost_rollups.h26 + excluded.h26, h27 = cost_rollups.h27 + excluded.h27, h28 = cost_rollups.h28 + excluded.h28, h29 = cost_rollups.h29 + excluded.h29, h30 = cost_rollups.h30 + excluded.h30, h31 = cost_rollups.h31 + excluded.h31, h32 = cost_rollups.h32 + excluded.h32, h33 = cost_rollups.h33 + excluded.h33, h34 = cost_rollups.h34 + excluded.h34, h35 = cost_rollups.h35 + excluded.h35, h36 = cost_rollups.h36 + excluded.h36, h37 = cost_rollups.h37 + excluded.h37, h38 = cost_rollups.h38 + excluded.h38, h39 = cost_rollups.h39 + excluded.h39, h40 = cost_rollups.h40 + excluded.h40, h41 = cost_rollups.h41 + excluded.h41, h42 = cost_rollups.h42 + excluded.h42, h43 = cost_rollups.h43 + excluded.h43, h44 = cost_rollups.h44 + excluded.h44, h45 = cost_rollups.h45 + excluded.h45, h46 = cost_rollups.h46 + excluded.h46, h47 = cost_rollups.h47 + excluded.h47;
END IF;
RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = "heap";

--
-- Name: api_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."api_tokens" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "name" character varying NOT NULL,
    "token_hash" character varying NOT NULL,
    "prefix" character varying DEFAULT ''::character varying NOT NULL,
    "scope" character varying DEFAULT 'read'::character varying NOT NULL,
    "last_used_at" timestamp with time zone,
    "expires_at" timestamp with time zone,
    "revoked_at" timestamp with time zone,
    "rate_tat" bigint DEFAULT 0 NOT NULL,
    "user_api_tokens" bigint NOT NULL
);


--
-- Name: api_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."api_tokens" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."api_tokens_id_seq"
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."audit_entries" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "actor" character varying NOT NULL,
    "action" character varying NOT NULL,
    "installation_id" bigint DEFAULT 0 NOT NULL,
    "target" character varying DEFAULT ''::character varying NOT NULL,
    "detail" "text" DEFAULT ''::"text" NOT NULL
);


--
-- Name: audit_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."audit_entries" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."audit_entries_id_seq"
    START WITH 60129542144
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: backtests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."backtests" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "reviewer_name" character varying NOT NULL,
    "reviewers_repo" character varying NOT NULL,
    "pr_number" bigint NOT NULL,
    "pr_url" character varying DEFAULT ''::character varying NOT NULL,
    "head_sha" character varying NOT NULL,
    "base_sha" character varying DEFAULT ''::character varying NOT NULL,
    "status" character varying DEFAULT 'queued'::character varying NOT NULL,
    "max_prs" bigint DEFAULT 10 NOT NULL,
    "max_cost_usd" double precision DEFAULT 5 NOT NULL,
    "cost_usd" double precision DEFAULT 0 NOT NULL,
    "check_run_id" bigint DEFAULT 0 NOT NULL,
    "comment_id" bigint DEFAULT 0 NOT NULL,
    "report" "text" DEFAULT ''::"text" NOT NULL,
    "summary" "jsonb",
    "failure_reason" character varying DEFAULT ''::character varying NOT NULL,
    "finished_at" timestamp with time zone,
    "old_snapshot" "jsonb",
    "new_snapshot" "jsonb",
    "check_completed" boolean DEFAULT false NOT NULL,
    "lease_owner" character varying DEFAULT ''::character varying NOT NULL,
    "heartbeat_at" timestamp with time zone,
    "next_attempt_at" timestamp with time zone,
    "installation_backtests" bigint NOT NULL
);


--
-- Name: backtests_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."backtests" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."backtests_id_seq"
    START WITH 64424509440
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: chakshu_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."chakshu_schema" (
    "schema_version" bigint NOT NULL,
    "min_compatible" bigint NOT NULL,
    "rollup_version" bigint NOT NULL,
    "build" "text" NOT NULL,
    "first_started_at" bigint NOT NULL,
    "last_started_at" bigint NOT NULL
);


--
-- Name: connector_credentials; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."connector_credentials" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "connector" character varying NOT NULL,
    "name" character varying NOT NULL,
    "ciphertext" "bytea" NOT NULL,
    "created_by" character varying DEFAULT ''::character varying NOT NULL,
    "hosts" "jsonb",
    "installation_credentials" bigint NOT NULL
);


--
-- Name: connector_credentials_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."connector_credentials" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."connector_credentials_id_seq"
    START WITH 4294967296
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: cost_rollup_pruned; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."cost_rollup_pruned" (
    "grain" "text" NOT NULL,
    "day" "text" NOT NULL,
    "repository_id" bigint NOT NULL,
    "reviewer_id" bigint NOT NULL,
    "runs" bigint DEFAULT 0 NOT NULL,
    "succeeded" bigint DEFAULT 0 NOT NULL,
    "failed" bigint DEFAULT 0 NOT NULL,
    "cancelled" bigint DEFAULT 0 NOT NULL,
    "cost_usd" double precision DEFAULT 0 NOT NULL,
    "input_tokens" bigint DEFAULT 0 NOT NULL,
    "output_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_read_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_write_tokens" bigint DEFAULT 0 NOT NULL,
    "findings_blocker" bigint DEFAULT 0 NOT NULL,
    "findings_major" bigint DEFAULT 0 NOT NULL,
    "findings_minor" bigint DEFAULT 0 NOT NULL,
    "findings_nit" bigint DEFAULT 0 NOT NULL,
    "h00" bigint DEFAULT 0 NOT NULL,
    "h01" bigint DEFAULT 0 NOT NULL,
    "h02" bigint DEFAULT 0 NOT NULL,
    "h03" bigint DEFAULT 0 NOT NULL,
    "h04" bigint DEFAULT 0 NOT NULL,
    "h05" bigint DEFAULT 0 NOT NULL,
    "h06" bigint DEFAULT 0 NOT NULL,
    "h07" bigint DEFAULT 0 NOT NULL,
    "h08" bigint DEFAULT 0 NOT NULL,
    "h09" bigint DEFAULT 0 NOT NULL,
    "h10" bigint DEFAULT 0 NOT NULL,
    "h11" bigint DEFAULT 0 NOT NULL,
    "h12" bigint DEFAULT 0 NOT NULL,
    "h13" bigint DEFAULT 0 NOT NULL,
    "h14" bigint DEFAULT 0 NOT NULL,
    "h15" bigint DEFAULT 0 NOT NULL,
    "h16" bigint DEFAULT 0 NOT NULL,
    "h17" bigint DEFAULT 0 NOT NULL,
    "h18" bigint DEFAULT 0 NOT NULL,
    "h19" bigint DEFAULT 0 NOT NULL,
    "h20" bigint DEFAULT 0 NOT NULL,
    "h21" bigint DEFAULT 0 NOT NULL,
    "h22" bigint DEFAULT 0 NOT NULL,
    "h23" bigint DEFAULT 0 NOT NULL,
    "h24" bigint DEFAULT 0 NOT NULL,
    "h25" bigint DEFAULT 0 NOT NULL,
    "h26" bigint DEFAULT 0 NOT NULL,
    "h27" bigint DEFAULT 0 NOT NULL,
    "h28" bigint DEFAULT 0 NOT NULL,
    "h29" bigint DEFAULT 0 NOT NULL,
    "h30" bigint DEFAULT 0 NOT NULL,
    "h31" bigint DEFAULT 0 NOT NULL,
    "h32" bigint DEFAULT 0 NOT NULL,
    "h33" bigint DEFAULT 0 NOT NULL,
    "h34" bigint DEFAULT 0 NOT NULL,
    "h35" bigint DEFAULT 0 NOT NULL,
    "h36" bigint DEFAULT 0 NOT NULL,
    "h37" bigint DEFAULT 0 NOT NULL,
    "h38" bigint DEFAULT 0 NOT NULL,
    "h39" bigint DEFAULT 0 NOT NULL,
    "h40" bigint DEFAULT 0 NOT NULL,
    "h41" bigint DEFAULT 0 NOT NULL,
    "h42" bigint DEFAULT 0 NOT NULL,
    "h43" bigint DEFAULT 0 NOT NULL,
    "h44" bigint DEFAULT 0 NOT NULL,
    "h45" bigint DEFAULT 0 NOT NULL,
    "h46" bigint DEFAULT 0 NOT NULL,
    "h47" bigint DEFAULT 0 NOT NULL
);


--
-- Name: cost_rollups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."cost_rollups" (
    "id" bigint NOT NULL,
    "grain" character varying NOT NULL,
    "day" character varying NOT NULL,
    "repository_id" bigint NOT NULL,
    "reviewer_id" bigint NOT NULL,
    "runs" bigint DEFAULT 0 NOT NULL,
    "succeeded" bigint DEFAULT 0 NOT NULL,
    "failed" bigint DEFAULT 0 NOT NULL,
    "cancelled" bigint DEFAULT 0 NOT NULL,
    "cost_usd" double precision DEFAULT 0 NOT NULL,
    "input_tokens" bigint DEFAULT 0 NOT NULL,
    "output_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_read_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_write_tokens" bigint DEFAULT 0 NOT NULL,
    "findings_blocker" bigint DEFAULT 0 NOT NULL,
    "findings_major" bigint DEFAULT 0 NOT NULL,
    "findings_minor" bigint DEFAULT 0 NOT NULL,
    "findings_nit" bigint DEFAULT 0 NOT NULL,
    "h00" bigint DEFAULT 0 NOT NULL,
    "h01" bigint DEFAULT 0 NOT NULL,
    "h02" bigint DEFAULT 0 NOT NULL,
    "h03" bigint DEFAULT 0 NOT NULL,
    "h04" bigint DEFAULT 0 NOT NULL,
    "h05" bigint DEFAULT 0 NOT NULL,
    "h06" bigint DEFAULT 0 NOT NULL,
    "h07" bigint DEFAULT 0 NOT NULL,
    "h08" bigint DEFAULT 0 NOT NULL,
    "h09" bigint DEFAULT 0 NOT NULL,
    "h10" bigint DEFAULT 0 NOT NULL,
    "h11" bigint DEFAULT 0 NOT NULL,
    "h12" bigint DEFAULT 0 NOT NULL,
    "h13" bigint DEFAULT 0 NOT NULL,
    "h14" bigint DEFAULT 0 NOT NULL,
    "h15" bigint DEFAULT 0 NOT NULL,
    "h16" bigint DEFAULT 0 NOT NULL,
    "h17" bigint DEFAULT 0 NOT NULL,
    "h18" bigint DEFAULT 0 NOT NULL,
    "h19" bigint DEFAULT 0 NOT NULL,
    "h20" bigint DEFAULT 0 NOT NULL,
    "h21" bigint DEFAULT 0 NOT NULL,
    "h22" bigint DEFAULT 0 NOT NULL,
    "h23" bigint DEFAULT 0 NOT NULL,
    "h24" bigint DEFAULT 0 NOT NULL,
    "h25" bigint DEFAULT 0 NOT NULL,
    "h26" bigint DEFAULT 0 NOT NULL,
    "h27" bigint DEFAULT 0 NOT NULL,
    "h28" bigint DEFAULT 0 NOT NULL,
    "h29" bigint DEFAULT 0 NOT NULL,
    "h30" bigint DEFAULT 0 NOT NULL,
    "h31" bigint DEFAULT 0 NOT NULL,
    "h32" bigint DEFAULT 0 NOT NULL,
    "h33" bigint DEFAULT 0 NOT NULL,
    "h34" bigint DEFAULT 0 NOT NULL,
    "h35" bigint DEFAULT 0 NOT NULL,
    "h36" bigint DEFAULT 0 NOT NULL,
    "h37" bigint DEFAULT 0 NOT NULL,
    "h38" bigint DEFAULT 0 NOT NULL,
    "h39" bigint DEFAULT 0 NOT NULL,
    "h40" bigint DEFAULT 0 NOT NULL,
    "h41" bigint DEFAULT 0 NOT NULL,
    "h42" bigint DEFAULT 0 NOT NULL,
    "h43" bigint DEFAULT 0 NOT NULL,
    "h44" bigint DEFAULT 0 NOT NULL,
    "h45" bigint DEFAULT 0 NOT NULL,
    "h46" bigint DEFAULT 0 NOT NULL,
    "h47" bigint DEFAULT 0 NOT NULL
);


--
-- Name: cost_rollups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."cost_rollups" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."cost_rollups_id_seq"
    START WITH 51539607552
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: findings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."findings" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "hidden_id" character varying NOT NULL,
    "path" character varying NOT NULL,
    "line" bigint DEFAULT 0 NOT NULL,
    "start_line" bigint DEFAULT 0 NOT NULL,
    "side" character varying DEFAULT 'RIGHT'::character varying NOT NULL,
    "severity" character varying NOT NULL,
    "category" character varying DEFAULT ''::character varying NOT NULL,
    "title" character varying NOT NULL,
    "body" "text" DEFAULT ''::"text" NOT NULL,
    "suggestion" "text" DEFAULT ''::"text" NOT NULL,
    "posted" boolean DEFAULT false NOT NULL,
    "placement" character varying DEFAULT 'none'::character varying NOT NULL,
    "dropped_reason" character varying DEFAULT ''::character varying NOT NULL,
    "comment_id" bigint DEFAULT 0 NOT NULL,
    "comment_url" character varying DEFAULT ''::character varying NOT NULL,
    "thread_id" character varying DEFAULT ''::character varying NOT NULL,
    "resolved" boolean DEFAULT false NOT NULL,
    "evidence" "text" DEFAULT ''::"text" NOT NULL,
    "evidence_moved_from" bigint DEFAULT 0 NOT NULL,
    "outcome" character varying DEFAULT 'open'::character varying NOT NULL,
    "outcome_at" timestamp with time zone,
    "outcome_reason" character varying DEFAULT ''::character varying NOT NULL,
    "run_findings" bigint NOT NULL
);


--
-- Name: findings_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."findings" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."findings_id_seq"
    START WITH 8589934592
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: hook_cursors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."hook_cursors" (
    "id" bigint NOT NULL,
    "app_id" bigint NOT NULL,
    "last_delivery_id" bigint DEFAULT 0 NOT NULL,
    "checked_at" timestamp with time zone
);


--
-- Name: hook_cursors_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."hook_cursors" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."hook_cursors_id_seq"
    START WITH 55834574848
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: installations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."installations" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "github_id" bigint NOT NULL,
    "account_login" character varying NOT NULL,
    "account_id" bigint DEFAULT 0 NOT NULL,
    "account_type" character varying DEFAULT 'Organization'::character varying NOT NULL,
    "reviewers_repo" character varying DEFAULT ''::character varying NOT NULL,
    "suspended" boolean DEFAULT false NOT NULL,
    "last_sync_at" timestamp with time zone,
    "last_sync_commit" character varying DEFAULT ''::character varying NOT NULL,
    "last_sync_error" "text" DEFAULT ''::"text" NOT NULL,
    "sync_requested_at" timestamp with time zone,
    "resolve_blocked" "text" DEFAULT ''::"text" NOT NULL,
    "budget_daily_usd" double precision DEFAULT 0 NOT NULL,
    "budget_monthly_usd" double precision DEFAULT 0 NOT NULL,
    "github_wait_until" timestamp with time zone,
    "github_wait_reason" "text" DEFAULT ''::"text" NOT NULL,
    "secondary_hits" bigint DEFAULT 0 NOT NULL,
    "write_pace" character varying DEFAULT ''::character varying NOT NULL,
    "last_claim_at" timestamp with time zone,
    "starts_held_until" timestamp with time zone
);


--
-- Name: installations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."installations" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."installations_id_seq"
    START WITH 12884901888
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: repositories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."repositories" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "github_id" bigint NOT NULL,
    "owner" character varying NOT NULL,
    "name" character varying NOT NULL,
    "full_name" character varying NOT NULL,
    "default_branch" character varying DEFAULT 'main'::character varying NOT NULL,
    "private" boolean DEFAULT false NOT NULL,
    "removed" boolean DEFAULT false NOT NULL,
    "budget_daily_usd" double precision DEFAULT 0 NOT NULL,
    "budget_monthly_usd" double precision DEFAULT 0 NOT NULL,
    "installation_repositories" bigint NOT NULL
);


--
-- Name: repositories_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."repositories" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."repositories_id_seq"
    START WITH 17179869184
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: review_learnings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."review_learnings" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "scope" character varying DEFAULT 'repo'::character varying NOT NULL,
    "glob" character varying DEFAULT ''::character varying NOT NULL,
    "directive" character varying NOT NULL,
    "dedupe_key" character varying NOT NULL,
    "author" character varying DEFAULT ''::character varying NOT NULL,
    "pr_number" bigint DEFAULT 0 NOT NULL,
    "comment_id" bigint DEFAULT 0 NOT NULL,
    "source" character varying DEFAULT 'portal'::character varying NOT NULL,
    "status" character varying DEFAULT 'accepted'::character varying NOT NULL,
    "finding_id" bigint DEFAULT 0 NOT NULL,
    "use_count" bigint DEFAULT 0 NOT NULL,
    "last_used_at" timestamp with time zone,
    "enabled" boolean DEFAULT true NOT NULL,
    "installation_learnings" bigint NOT NULL,
    "repository_learnings" bigint
);


--
-- Name: review_learnings_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."review_learnings" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."review_learnings_id_seq"
    START WITH 21474836480
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reviewers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."reviewers" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "name" character varying NOT NULL,
    "description" character varying DEFAULT ''::character varying NOT NULL,
    "enabled" boolean DEFAULT true NOT NULL,
    "synced_commit" character varying DEFAULT ''::character varying NOT NULL,
    "synced_at" timestamp with time zone,
    "claude_md" "text" DEFAULT ''::"text" NOT NULL,
    "config_yaml" "text" DEFAULT ''::"text" NOT NULL,
    "config" "jsonb",
    "skills" "jsonb",
    "sync_error" "text" DEFAULT ''::"text" NOT NULL,
    "sync_error_at" timestamp with time zone,
    "sync_error_commit" character varying DEFAULT ''::character varying NOT NULL,
    "installation_reviewers" bigint NOT NULL
);


--
-- Name: reviewers_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."reviewers" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."reviewers_id_seq"
    START WITH 25769803776
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: run_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."run_events" (
    "id" bigint NOT NULL,
    "at" timestamp with time zone NOT NULL,
    "from_status" character varying DEFAULT ''::character varying NOT NULL,
    "to_status" character varying DEFAULT ''::character varying NOT NULL,
    "message" character varying DEFAULT ''::character varying NOT NULL,
    "detail" "text" DEFAULT ''::"text" NOT NULL,
    "run_events" bigint NOT NULL
);


--
-- Name: run_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."run_events" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."run_events_id_seq"
    START WITH 34359738368
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."runs" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "kind" character varying DEFAULT 'review'::character varying NOT NULL,
    "status" character varying DEFAULT 'queued'::character varying NOT NULL,
    "trigger" character varying NOT NULL,
    "shadow" boolean DEFAULT false NOT NULL,
    "backtest_side" character varying DEFAULT 'none'::character varying NOT NULL,
    "backtest_id" bigint DEFAULT 0 NOT NULL,
    "reviewer_snapshot" "jsonb",
    "pr_number" bigint NOT NULL,
    "pr_title" character varying DEFAULT ''::character varying NOT NULL,
    "pr_url" character varying DEFAULT ''::character varying NOT NULL,
    "head_sha" character varying NOT NULL,
    "head_ref" character varying DEFAULT ''::character varying NOT NULL,
    "base_sha" character varying DEFAULT ''::character varying NOT NULL,
    "base_ref" character varying DEFAULT ''::character varying NOT NULL,
    "pr_files" "bytea",
    "repo_config" "text",
    "incremental_since" character varying DEFAULT ''::character varying NOT NULL,
    "full_review_reason" character varying DEFAULT ''::character varying NOT NULL,
    "requester" character varying DEFAULT ''::character varying NOT NULL,
    "note" "text" DEFAULT ''::"text" NOT NULL,
    "request_target" character varying DEFAULT ''::character varying NOT NULL,
    "model" character varying DEFAULT ''::character varying NOT NULL,
    "provider" character varying DEFAULT ''::character varying NOT NULL,
    "max_cost_usd" double precision DEFAULT 0 NOT NULL,
    "check_run_id" bigint DEFAULT 0 NOT NULL,
    "check_completed" boolean DEFAULT false NOT NULL,
    "actions_run_id" bigint DEFAULT 0 NOT NULL,
    "actions_run_url" character varying DEFAULT ''::character varying NOT NULL,
    "run_token_hash" character varying DEFAULT ''::character varying NOT NULL,
    "result_hash" character varying DEFAULT ''::character varying NOT NULL,
    "model_final_used" boolean DEFAULT false NOT NULL,
    "lease_owner" character varying DEFAULT ''::character varying NOT NULL,
    "heartbeat_at" timestamp with time zone,
    "attempts" bigint DEFAULT 0 NOT NULL,
    "next_attempt_at" timestamp with time zone,
    "publish_failures" bigint DEFAULT 0 NOT NULL,
    "finish_attempts" bigint DEFAULT 0 NOT NULL,
    "finish_next_at" timestamp with time zone,
    "actions_cancelled_at" timestamp with time zone,
    "dispatched_at" timestamp with time zone,
    "started_at" timestamp with time zone,
    "reported_at" timestamp with time zone,
    "finished_at" timestamp with time zone,
    "cost_usd" double precision DEFAULT 0 NOT NULL,
    "input_tokens" bigint DEFAULT 0 NOT NULL,
    "output_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_read_tokens" bigint DEFAULT 0 NOT NULL,
    "cache_write_tokens" bigint DEFAULT 0 NOT NULL,
    "model_price" "text" DEFAULT ''::"text" NOT NULL,
    "turns" bigint DEFAULT 0 NOT NULL,
    "duration_ms" bigint DEFAULT 0 NOT NULL,
    "summary" "text" DEFAULT ''::"text" NOT NULL,
    "result" "jsonb",
    "checked" "jsonb",
    "filtered_files" "jsonb",
    "result_json" "text" DEFAULT ''::"text" NOT NULL,
    "failure_reason" character varying DEFAULT ''::character varying NOT NULL,
    "failure_detail" "text" DEFAULT ''::"text" NOT NULL,
    "findings_blocker" bigint DEFAULT 0 NOT NULL,
    "findings_major" bigint DEFAULT 0 NOT NULL,
    "findings_minor" bigint DEFAULT 0 NOT NULL,
    "findings_nit" bigint DEFAULT 0 NOT NULL,
    "findings_posted" bigint DEFAULT 0 NOT NULL,
    "findings_dropped" bigint DEFAULT 0 NOT NULL,
    "review_id" bigint DEFAULT 0 NOT NULL,
    "learnings_used" "jsonb",
    "changed_files" bigint DEFAULT 0 NOT NULL,
    "additions" bigint DEFAULT 0 NOT NULL,
    "deletions" bigint DEFAULT 0 NOT NULL,
    "behind_by" bigint DEFAULT 0 NOT NULL,
    "ahead_by" bigint DEFAULT 0 NOT NULL,
    "from_fork" boolean DEFAULT false NOT NULL,
    "reply_to_comment_id" bigint,
    "thread_root_comment_id" bigint DEFAULT 0 NOT NULL,
    "reply_comment_id" bigint DEFAULT 0 NOT NULL,
    "repository_runs" bigint NOT NULL,
    "reviewer_runs" bigint NOT NULL
);


--
-- Name: runs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."runs" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."runs_id_seq"
    START WITH 30064771072
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."users" (
    "id" bigint NOT NULL,
    "created_at" timestamp with time zone NOT NULL,
    "updated_at" timestamp with time zone NOT NULL,
    "github_id" bigint NOT NULL,
    "login" character varying NOT NULL,
    "name" character varying DEFAULT ''::character varying NOT NULL,
    "avatar_url" character varying DEFAULT ''::character varying NOT NULL,
    "is_admin" boolean DEFAULT false NOT NULL,
    "last_login_at" timestamp with time zone,
    "repo_access" "jsonb",
    "repo_access_refreshed_at" timestamp with time zone,
    "admin_installations" "jsonb",
    "github_token_sealed" "bytea",
    "signed_out_at" timestamp with time zone
);


--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."users" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."users_id_seq"
    START WITH 38654705664
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: webhook_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."webhook_events" (
    "id" bigint NOT NULL,
    "delivery_id" character varying NOT NULL,
    "event" character varying NOT NULL,
    "action" character varying DEFAULT ''::character varying NOT NULL,
    "installation_id" bigint DEFAULT 0 NOT NULL,
    "repository" character varying DEFAULT ''::character varying NOT NULL,
    "payload" "bytea" NOT NULL,
    "status" character varying DEFAULT 'pending'::character varying NOT NULL,
    "attempts" bigint DEFAULT 0 NOT NULL,
    "last_error" "text" DEFAULT ''::"text" NOT NULL,
    "lease_owner" character varying DEFAULT ''::character varying NOT NULL,
    "heartbeat_at" timestamp with time zone,
    "next_attempt_at" timestamp with time zone,
    "received_at" timestamp with time zone NOT NULL,
    "handled_at" timestamp with time zone
);
ALTER TABLE ONLY "public"."webhook_events" ALTER COLUMN "payload" SET COMPRESSION lz4;


--
-- Name: webhook_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."webhook_events" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."webhook_events_id_seq"
    START WITH 42949672960
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE "public"."workers" (
    "id" bigint NOT NULL,
    "worker_id" character varying NOT NULL,
    "hostname" character varying DEFAULT ''::character varying NOT NULL,
    "pid" bigint DEFAULT 0 NOT NULL,
    "version" character varying DEFAULT ''::character varying NOT NULL,
    "started_at" timestamp with time zone NOT NULL,
    "heartbeat_at" timestamp with time zone NOT NULL,
    "stopped" boolean DEFAULT false NOT NULL
);


--
-- Name: workers_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE "public"."workers" ALTER COLUMN "id" ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME "public"."workers_id_seq"
    START WITH 47244640256
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Data for Name: api_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_entries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: backtests; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: chakshu_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."chakshu_schema" VALUES (4, 3, 4, 'v0.1.0', 1796684287, 1796684287);


--
-- Data for Name: connector_credentials; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."connector_credentials" VALUES (4294967296, '2026-12-07 22:58:08.136438+00', '2026-12-07 22:58:08.136439+00', 'http', 'token', '\x010203', '', NULL, 12884901888);


--
-- Data for Name: cost_rollup_pruned; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: cost_rollups; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."cost_rollups" VALUES (51539607553, 'wt', '2026-09-28', 0, 0, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607554, 'dt', '2026-10-03', 0, 0, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607556, 'wv', '2026-09-28', 0, 25769803776, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607557, 'dv', '2026-10-03', 0, 25769803776, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607559, 'wr', '2026-09-28', 17179869184, 0, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607560, 'dr', '2026-10-03', 17179869184, 0, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607562, 'w', '2026-09-28', 17179869184, 25769803776, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607563, 'd', '2026-10-03', 17179869184, 25769803776, 1, 1, 0, 0, 0.42, 1000, 100, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607565, 'wt', '2026-10-12', 0, 0, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607552, 'mt', '2026-10-01', 0, 0, 4, 2, 1, 1, 1.57, 10000, 1000, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607566, 'dt', '2026-10-13', 0, 0, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607555, 'mv', '2026-10-01', 0, 25769803776, 2, 1, 1, 0, 0.47, 3000, 300, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607568, 'wv', '2026-10-12', 0, 25769803776, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607569, 'dv', '2026-10-13', 0, 25769803776, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607571, 'wr', '2026-10-12', 17179869184, 0, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607572, 'dr', '2026-10-13', 17179869184, 0, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607561, 'm', '2026-10-01', 17179869184, 25769803776, 2, 1, 1, 0, 0.47, 3000, 300, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607574, 'w', '2026-10-12', 17179869184, 25769803776, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607575, 'd', '2026-10-13', 17179869184, 25769803776, 1, 0, 1, 0, 0.05, 2000, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607578, 'dt', '2026-10-30', 0, 0, 1, 1, 0, 0, 1.1, 3000, 300, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607577, 'wt', '2026-10-26', 0, 0, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607581, 'dv', '2026-10-30', 0, 25769803777, 1, 1, 0, 0, 1.1, 3000, 300, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607584, 'dr', '2026-10-30', 17179869184, 0, 1, 1, 0, 0, 1.1, 3000, 300, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607587, 'd', '2026-10-30', 17179869184, 25769803777, 1, 1, 0, 0, 1.1, 3000, 300, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607590, 'dt', '2026-10-31', 0, 0, 1, 0, 0, 1, 0, 4000, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607579, 'mv', '2026-10-01', 0, 25769803777, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607580, 'wv', '2026-10-26', 0, 25769803777, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607593, 'dv', '2026-10-31', 0, 25769803777, 1, 0, 0, 1, 0, 4000, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607558, 'mr', '2026-10-01', 17179869184, 0, 4, 2, 1, 1, 1.57, 10000, 1000, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607583, 'wr', '2026-10-26', 17179869184, 0, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607596, 'dr', '2026-10-31', 17179869184, 0, 1, 0, 0, 1, 0, 4000, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607585, 'm', '2026-10-01', 17179869184, 25769803777, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607586, 'w', '2026-10-26', 17179869184, 25769803777, 2, 1, 0, 1, 1.1, 7000, 700, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607599, 'd', '2026-10-31', 17179869184, 25769803777, 1, 0, 0, 1, 0, 4000, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607600, 'mt', '2026-11-01', 0, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607601, 'wt', '2026-11-02', 0, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607602, 'dt', '2026-11-02', 0, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607603, 'mv', '2026-11-01', 0, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607604, 'wv', '2026-11-02', 0, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607605, 'dv', '2026-11-02', 0, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607606, 'mr', '2026-11-01', 17179869184, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607607, 'wr', '2026-11-02', 17179869184, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607608, 'dr', '2026-11-02', 17179869184, 0, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607609, 'm', '2026-11-01', 17179869184, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607610, 'w', '2026-11-02', 17179869184, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
INSERT INTO "public"."cost_rollups" VALUES (51539607611, 'd', '2026-11-02', 17179869184, 25769803776, 1, 0, 0, 0, 0, 5000, 500, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);


--
-- Data for Name: findings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."findings" VALUES (8589934592, '2026-12-07 22:58:08.030878+00', '2026-12-07 22:58:08.030879+00', 'h0', 'main.go', 3, 0, 'RIGHT', 'major', '', 'Unchecked error', '', '', false, 'none', '', 0, '', '', false, '', 0, 'open', NULL, '', 30064771072);
INSERT INTO "public"."findings" VALUES (8589934593, '2026-12-07 22:58:08.106282+00', '2026-12-07 22:58:08.106282+00', 'h2', 'main.go', 3, 0, 'RIGHT', 'major', '', 'Unchecked error', '', '', false, 'none', '', 0, '', '', false, '', 0, 'open', NULL, '', 30064771074);


--
-- Data for Name: hook_cursors; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: installations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."installations" VALUES (12884901888, '2026-12-07 22:58:07.931402+00', '2026-12-07 22:58:07.931403+00', 100, 'acme', 0, 'Organization', '', false, NULL, '', '', NULL, '', 0, 0, NULL, '', 0, '', NULL, NULL);


--
-- Data for Name: repositories; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."repositories" VALUES (17179869184, '2026-12-07 22:58:07.939225+00', '2026-12-07 22:58:07.939226+00', 200, 'acme', 'api', 'acme/api', 'main', false, false, 0, 0, 12884901888);


--
-- Data for Name: review_learnings; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: reviewers; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."reviewers" VALUES (25769803776, '2026-12-07 22:58:07.946916+00', '2026-12-07 22:58:07.946917+00', 'security', '', true, '', NULL, '', '', NULL, NULL, '', NULL, '', 12884901888);
INSERT INTO "public"."reviewers" VALUES (25769803777, '2026-12-07 22:58:07.974436+00', '2026-12-07 22:58:07.974438+00', 'perf', '', true, '', NULL, '', '', NULL, NULL, '', NULL, '', 12884901888);


--
-- Data for Name: run_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."run_events" VALUES (34359738368, '2026-10-03 09:00:00+00', '', 'queued', 'Queued.', '', 30064771072);
INSERT INTO "public"."run_events" VALUES (34359738369, '2026-10-13 09:00:00+00', '', 'queued', 'Queued.', '', 30064771073);
INSERT INTO "public"."run_events" VALUES (34359738370, '2026-10-30 09:00:00+00', '', 'queued', 'Queued.', '', 30064771074);
INSERT INTO "public"."run_events" VALUES (34359738371, '2026-10-31 09:00:00+00', '', 'queued', 'Queued.', '', 30064771075);
INSERT INTO "public"."run_events" VALUES (34359738372, '2026-11-02 08:00:00+00', '', 'queued', 'Queued.', '', 30064771076);


--
-- Data for Name: runs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."runs" VALUES (30064771072, '2026-10-03 09:00:00+00', '2026-10-03 09:00:00+00', 'review', 'succeeded', 'comment', false, 'none', 0, NULL, 10, '', '', 'sha0', '', '', '', NULL, NULL, '', '', '', '', '', '', '', 0, 0, false, 0, '', '', '', false, '', NULL, 0, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0.42, 1000, 100, 0, 0, '', 0, 95000, '', '{"review": {"checked": {"files": ["main.go"], "skills": []}, "summary": "Run 0.", "findings": [{"body": "Check it.", "line": 3, "path": "main.go", "side": "RIGHT", "title": "Unchecked error", "category": "correctness", "severity": "major"}]}, "checked": {"files": ["main.go"], "skills": [], "files_read": ["main.go", "go.mod"]}}', NULL, NULL, '', '', '', 0, 2, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0, 17179869184, 25769803776);
INSERT INTO "public"."runs" VALUES (30064771073, '2026-10-13 09:00:00+00', '2026-10-13 09:00:00+00', 'review', 'failed', 'comment', false, 'none', 0, NULL, 11, '', '', 'sha1', '', '', '', NULL, NULL, '', '', '', '', '', '', '', 0, 0, false, 0, '', '', '', false, '', NULL, 0, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0.05, 2000, 200, 0, 0, '', 0, 12000, '', NULL, NULL, NULL, '', '', '', 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0, 17179869184, 25769803776);
INSERT INTO "public"."runs" VALUES (30064771074, '2026-10-30 09:00:00+00', '2026-10-30 09:00:00+00', 'review', 'succeeded', 'comment', false, 'none', 0, NULL, 12, '', '', 'sha2', '', '', '', NULL, NULL, '', '', '', '', '', '', '', 0, 0, false, 0, '', '', '', false, '', NULL, 0, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 1.1, 3000, 300, 0, 0, '', 0, 240000, '', '{"review": {"checked": {"files": ["main.go"], "skills": []}, "summary": "Run 2.", "findings": [{"body": "Check it.", "line": 3, "path": "main.go", "side": "RIGHT", "title": "Unchecked error", "category": "correctness", "severity": "major"}]}, "checked": {"files": ["main.go"], "skills": [], "files_read": ["main.go", "go.mod"]}}', NULL, NULL, '', '', '', 0, 1, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0, 17179869184, 25769803777);
INSERT INTO "public"."runs" VALUES (30064771075, '2026-10-31 09:00:00+00', '2026-10-31 09:00:00+00', 'review', 'cancelled', 'comment', false, 'none', 0, NULL, 13, '', '', 'sha3', '', '', '', NULL, NULL, '', '', '', '', '', '', '', 0, 0, false, 0, '', '', '', false, '', NULL, 0, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 4000, 400, 0, 0, '', 0, 0, '', NULL, NULL, NULL, '', '', '', 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0, 17179869184, 25769803777);
INSERT INTO "public"."runs" VALUES (30064771076, '2026-11-02 08:00:00+00', '2026-11-02 08:00:00+00', 'review', 'queued', 'comment', false, 'none', 0, NULL, 14, '', '', 'sha4', '', '', '', NULL, NULL, '', '', '', '', '', '', '', 0, 0, false, 0, '', '', '', false, '', NULL, 0, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 5000, 500, 0, 0, '', 0, 0, '', NULL, NULL, NULL, '', '', '', 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, false, NULL, 0, 0, 17179869184, 25769803776);


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: webhook_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."webhook_events" VALUES (42949672960, 'd-done', 'push', '', 100, 'acme/api', '\x7b22726566223a22726566732f68656164732f6d61696e227d', 'done', 0, '', '', NULL, NULL, '2026-11-02 08:00:00+00', NULL);
INSERT INTO "public"."webhook_events" VALUES (42949672961, 'd-failed', 'issue_comment', 'created', 0, '', '\x7b22616374696f6e223a2263726561746564227d', 'failed', 3, 'boom', '', NULL, NULL, '2026-12-07 22:58:08.127705+00', NULL);


--
-- Data for Name: workers; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO "public"."workers" VALUES (47244640256, 'host-1-abc', 'host', 1, 'release', '2026-12-07 22:58:08.134872+00', '2026-12-07 22:58:08.134873+00', false);


--
-- Name: api_tokens_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."api_tokens_id_seq"', 1, false);


--
-- Name: audit_entries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."audit_entries_id_seq"', 60129542144, false);


--
-- Name: backtests_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."backtests_id_seq"', 64424509440, false);


--
-- Name: connector_credentials_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."connector_credentials_id_seq"', 4294967296, true);


--
-- Name: cost_rollups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."cost_rollups_id_seq"', 51539607611, true);


--
-- Name: findings_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."findings_id_seq"', 8589934593, true);


--
-- Name: hook_cursors_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."hook_cursors_id_seq"', 55834574848, false);


--
-- Name: installations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."installations_id_seq"', 12884901888, true);


--
-- Name: repositories_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."repositories_id_seq"', 17179869184, true);


--
-- Name: review_learnings_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."review_learnings_id_seq"', 21474836480, false);


--
-- Name: reviewers_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."reviewers_id_seq"', 25769803777, true);


--
-- Name: run_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."run_events_id_seq"', 34359738372, true);


--
-- Name: runs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."runs_id_seq"', 30064771076, true);


--
-- Name: users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."users_id_seq"', 38654705664, false);


--
-- Name: webhook_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."webhook_events_id_seq"', 42949672961, true);


--
-- Name: workers_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('"public"."workers_id_seq"', 47244640256, true);


--
-- Name: api_tokens api_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."api_tokens"
    ADD CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id");


--
-- Name: audit_entries audit_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."audit_entries"
    ADD CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id");


--
-- Name: backtests backtests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."backtests"
    ADD CONSTRAINT "backtests_pkey" PRIMARY KEY ("id");


--
-- Name: chakshu_schema chakshu_schema_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."chakshu_schema"
    ADD CONSTRAINT "chakshu_schema_pkey" PRIMARY KEY ("schema_version");


--
-- Name: connector_credentials connector_credentials_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."connector_credentials"
    ADD CONSTRAINT "connector_credentials_pkey" PRIMARY KEY ("id");


--
-- Name: cost_rollup_pruned cost_rollup_pruned_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."cost_rollup_pruned"
    ADD CONSTRAINT "cost_rollup_pruned_pkey" PRIMARY KEY ("grain", "day", "repository_id", "reviewer_id");


--
-- Name: cost_rollups cost_rollups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."cost_rollups"
    ADD CONSTRAINT "cost_rollups_pkey" PRIMARY KEY ("id");


--
-- Name: findings findings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."findings"
    ADD CONSTRAINT "findings_pkey" PRIMARY KEY ("id");


--
-- Name: hook_cursors hook_cursors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."hook_cursors"
    ADD CONSTRAINT "hook_cursors_pkey" PRIMARY KEY ("id");


--
-- Name: installations installations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."installations"
    ADD CONSTRAINT "installations_pkey" PRIMARY KEY ("id");


--
-- Name: repositories repositories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."repositories"
    ADD CONSTRAINT "repositories_pkey" PRIMARY KEY ("id");


--
-- Name: review_learnings review_learnings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."review_learnings"
    ADD CONSTRAINT "review_learnings_pkey" PRIMARY KEY ("id");


--
-- Name: reviewers reviewers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."reviewers"
    ADD CONSTRAINT "reviewers_pkey" PRIMARY KEY ("id");


--
-- Name: run_events run_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."run_events"
    ADD CONSTRAINT "run_events_pkey" PRIMARY KEY ("id");


--
-- Name: runs runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."runs"
    ADD CONSTRAINT "runs_pkey" PRIMARY KEY ("id");


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."users"
    ADD CONSTRAINT "users_pkey" PRIMARY KEY ("id");


--
-- Name: webhook_events webhook_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."webhook_events"
    ADD CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id");


--
-- Name: workers workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."workers"
    ADD CONSTRAINT "workers_pkey" PRIMARY KEY ("id");


--
-- Name: api_tokens_token_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "public"."api_tokens" USING "btree" ("token_hash");


--
-- Name: auditentry_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "auditentry_created_at" ON "public"."audit_entries" USING "btree" ("created_at");


--
-- Name: auditentry_installation_id_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "auditentry_installation_id_created_at" ON "public"."audit_entries" USING "btree" ("installation_id", "created_at");


--
-- Name: backtest_reviewers_repo_pr_number_reviewer_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "backtest_reviewers_repo_pr_number_reviewer_name" ON "public"."backtests" USING "btree" ("reviewers_repo", "pr_number", "reviewer_name");


--
-- Name: backtest_status_next_attempt_at_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "backtest_status_next_attempt_at_created_at" ON "public"."backtests" USING "btree" ("status", "next_attempt_at", "created_at");


--
-- Name: connectorcredential_connector_name_installation_credentials; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "connectorcredential_connector_name_installation_credentials" ON "public"."connector_credentials" USING "btree" ("connector", "name", "installation_credentials");


--
-- Name: costrollup_grain_day_repository_id_reviewer_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "costrollup_grain_day_repository_id_reviewer_id" ON "public"."cost_rollups" USING "btree" ("grain", "day", "repository_id", "reviewer_id");


--
-- Name: finding_comment_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "finding_comment_id" ON "public"."findings" USING "btree" ("comment_id");


--
-- Name: finding_hidden_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "finding_hidden_id" ON "public"."findings" USING "btree" ("hidden_id");


--
-- Name: finding_outcome; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "finding_outcome" ON "public"."findings" USING "btree" ("outcome");


--
-- Name: finding_outcome_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "finding_outcome_at" ON "public"."findings" USING "btree" ("outcome_at");


--
-- Name: finding_run_findings; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "finding_run_findings" ON "public"."findings" USING "btree" ("run_findings");


--
-- Name: hook_cursors_app_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "hook_cursors_app_id_key" ON "public"."hook_cursors" USING "btree" ("app_id");


--
-- Name: installations_github_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "installations_github_id_key" ON "public"."installations" USING "btree" ("github_id");


--
-- Name: repositories_github_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "repositories_github_id_key" ON "public"."repositories" USING "btree" ("github_id");


--
-- Name: review_learnings_dedupe_key_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "review_learnings_dedupe_key_key" ON "public"."review_learnings" USING "btree" ("dedupe_key");


--
-- Name: reviewer_name_installation_reviewers; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "reviewer_name_installation_reviewers" ON "public"."reviewers" USING "btree" ("name", "installation_reviewers");


--
-- Name: run_actions_run_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_actions_run_id" ON "public"."runs" USING "btree" ("actions_run_id");


--
-- Name: run_active_review; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "run_active_review" ON "public"."runs" USING "btree" ("pr_number", "head_sha", "kind", "repository_runs", "reviewer_runs") WHERE ((("status")::"text" = ANY ((ARRAY['queued'::character varying, 'dispatched'::character varying, 'running'::character varying, 'publishing'::character varying])::"text"[])) AND (("kind")::"text" = 'review'::"text") AND ("shadow" = false));


--
-- Name: run_backtest_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_backtest_id" ON "public"."runs" USING "btree" ("backtest_id");


--
-- Name: run_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_created_at" ON "public"."runs" USING "btree" ("created_at");


--
-- Name: run_created_at_repository_runs; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_created_at_repository_runs" ON "public"."runs" USING "btree" ("created_at", "repository_runs");


--
-- Name: run_created_at_reviewer_runs; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_created_at_reviewer_runs" ON "public"."runs" USING "btree" ("created_at", "reviewer_runs");


--
-- Name: run_held_by_repository; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_held_by_repository" ON "public"."runs" USING "btree" ("repository_runs") WHERE ((("status")::"text" = 'queued'::"text") AND (("lease_owner")::"text" <> ''::"text"));


--
-- Name: run_lease_owner_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_lease_owner_status" ON "public"."runs" USING "btree" ("lease_owner", "status");


--
-- Name: run_pr_number_repository_runs; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_pr_number_repository_runs" ON "public"."runs" USING "btree" ("pr_number", "repository_runs");


--
-- Name: run_queued_by_repository; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_queued_by_repository" ON "public"."runs" USING "btree" ("repository_runs", "created_at", "id") WHERE ((("status")::"text" = 'queued'::"text") AND (("lease_owner")::"text" = ''::"text"));


--
-- Name: run_reply_to_comment_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "run_reply_to_comment_id" ON "public"."runs" USING "btree" ("reply_to_comment_id");


--
-- Name: run_repository_created_at_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_repository_created_at_id" ON "public"."runs" USING "btree" ("repository_runs", "created_at", "id");


--
-- Name: run_repository_status_created_at_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_repository_status_created_at_id" ON "public"."runs" USING "btree" ("repository_runs", "status", "created_at", "id");


--
-- Name: run_reviewer_created_at_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_reviewer_created_at_id" ON "public"."runs" USING "btree" ("reviewer_runs", "created_at", "id");


--
-- Name: run_reviewer_status_created_at_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_reviewer_status_created_at_id" ON "public"."runs" USING "btree" ("reviewer_runs", "status", "created_at", "id");


--
-- Name: run_shadow_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_shadow_created_at" ON "public"."runs" USING "btree" ("shadow", "created_at");


--
-- Name: run_status_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_status_created_at" ON "public"."runs" USING "btree" ("status", "created_at");


--
-- Name: run_status_created_at_repository_runs; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_status_created_at_repository_runs" ON "public"."runs" USING "btree" ("status", "created_at", "repository_runs");


--
-- Name: run_status_created_at_reviewer_runs; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_status_created_at_reviewer_runs" ON "public"."runs" USING "btree" ("status", "created_at", "reviewer_runs");


--
-- Name: run_status_next_attempt_at_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_status_next_attempt_at_created_at" ON "public"."runs" USING "btree" ("status", "next_attempt_at", "created_at");


--
-- Name: run_updated_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "run_updated_at" ON "public"."runs" USING "btree" ("updated_at");


--
-- Name: runevent_at_run_events; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "runevent_at_run_events" ON "public"."run_events" USING "btree" ("at", "run_events");


--
-- Name: users_github_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "users_github_id_key" ON "public"."users" USING "btree" ("github_id");


--
-- Name: users_login_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "users_login_key" ON "public"."users" USING "btree" ("login");


--
-- Name: webhook_events_delivery_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "webhook_events_delivery_id_key" ON "public"."webhook_events" USING "btree" ("delivery_id");


--
-- Name: webhookevent_lease_owner_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "webhookevent_lease_owner_status" ON "public"."webhook_events" USING "btree" ("lease_owner", "status");


--
-- Name: webhookevent_received_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "webhookevent_received_at" ON "public"."webhook_events" USING "btree" ("received_at");


--
-- Name: webhookevent_status_next_attempt_at_received_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "webhookevent_status_next_attempt_at_received_at" ON "public"."webhook_events" USING "btree" ("status", "next_attempt_at", "received_at");


--
-- Name: worker_heartbeat_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX "worker_heartbeat_at" ON "public"."workers" USING "btree" ("heartbeat_at");


--
-- Name: workers_worker_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX "workers_worker_id_key" ON "public"."workers" USING "btree" ("worker_id");


--
-- Name: runs runs_rollup_v4_insert_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER "runs_rollup_v4_insert_delete" AFTER INSERT OR DELETE ON "public"."runs" FOR EACH ROW EXECUTE FUNCTION "public"."runs_rollup_v4"();


--
-- Name: runs runs_rollup_v4_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER "runs_rollup_v4_update" AFTER UPDATE ON "public"."runs" FOR EACH ROW WHEN (((("old"."status")::"text" IS DISTINCT FROM ("new"."status")::"text") OR ("old"."duration_ms" IS DISTINCT FROM "new"."duration_ms") OR ("old"."cost_usd" IS DISTINCT FROM "new"."cost_usd") OR ("old"."input_tokens" IS DISTINCT FROM "new"."input_tokens") OR ("old"."output_tokens" IS DISTINCT FROM "new"."output_tokens") OR ("old"."cache_read_tokens" IS DISTINCT FROM "new"."cache_read_tokens") OR ("old"."cache_write_tokens" IS DISTINCT FROM "new"."cache_write_tokens") OR ("old"."findings_blocker" IS DISTINCT FROM "new"."findings_blocker") OR ("old"."findings_major" IS DISTINCT FROM "new"."findings_major") OR ("old"."findings_minor" IS DISTINCT FROM "new"."findings_minor") OR ("old"."findings_nit" IS DISTINCT FROM "new"."findings_nit") OR ("old"."created_at" IS DISTINCT FROM "new"."created_at") OR ("old"."repository_runs" IS DISTINCT FROM "new"."repository_runs") OR ("old"."reviewer_runs" IS DISTINCT FROM "new"."reviewer_runs"))) EXECUTE FUNCTION "public"."runs_rollup_v4"();


--
-- Name: api_tokens api_tokens_users_api_tokens; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."api_tokens"
    ADD CONSTRAINT "api_tokens_users_api_tokens" FOREIGN KEY ("user_api_tokens") REFERENCES "public"."users"("id");


--
-- Name: backtests backtests_installations_backtests; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."backtests"
    ADD CONSTRAINT "backtests_installations_backtests" FOREIGN KEY ("installation_backtests") REFERENCES "public"."installations"("id");


--
-- Name: connector_credentials connector_credentials_installations_credentials; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."connector_credentials"
    ADD CONSTRAINT "connector_credentials_installations_credentials" FOREIGN KEY ("installation_credentials") REFERENCES "public"."installations"("id");


--
-- Name: findings findings_runs_findings; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."findings"
    ADD CONSTRAINT "findings_runs_findings" FOREIGN KEY ("run_findings") REFERENCES "public"."runs"("id");


--
-- Name: repositories repositories_installations_repositories; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."repositories"
    ADD CONSTRAINT "repositories_installations_repositories" FOREIGN KEY ("installation_repositories") REFERENCES "public"."installations"("id");


--
-- Name: review_learnings review_learnings_installations_learnings; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."review_learnings"
    ADD CONSTRAINT "review_learnings_installations_learnings" FOREIGN KEY ("installation_learnings") REFERENCES "public"."installations"("id");


--
-- Name: review_learnings review_learnings_repositories_learnings; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."review_learnings"
    ADD CONSTRAINT "review_learnings_repositories_learnings" FOREIGN KEY ("repository_learnings") REFERENCES "public"."repositories"("id") ON DELETE SET NULL;


--
-- Name: reviewers reviewers_installations_reviewers; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."reviewers"
    ADD CONSTRAINT "reviewers_installations_reviewers" FOREIGN KEY ("installation_reviewers") REFERENCES "public"."installations"("id");


--
-- Name: run_events run_events_runs_events; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."run_events"
    ADD CONSTRAINT "run_events_runs_events" FOREIGN KEY ("run_events") REFERENCES "public"."runs"("id");


--
-- Name: runs runs_repositories_runs; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."runs"
    ADD CONSTRAINT "runs_repositories_runs" FOREIGN KEY ("repository_runs") REFERENCES "public"."repositories"("id");


--
-- Name: runs runs_reviewers_runs; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY "public"."runs"
    ADD CONSTRAINT "runs_reviewers_runs" FOREIGN KEY ("reviewer_runs") REFERENCES "public"."reviewers"("id");


--
-- PostgreSQL database dump complete
--


