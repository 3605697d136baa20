-- wrk's script for bench/wrk.ts: every request redeems the next code of a series, <prefix><n> for n = start,
-- start + step, start + 2·step, …, each with an e-mail address of its own (k wrk processes side by side take the
-- step k and the starts s, s + 1, …, s + k - 1). Arguments after `--`: prefix, start, step and optionally "many":
-- then each request comes from an address of its own, 10.<n / 256 % 256>.<n % 256>.1 in X-Forwarded-For (the API
-- started with TRUST_PROXY=loopback), instead of all from the loopback address. One thread (-t1): the
-- counter is the thread's. done() prints one line, "wrk-result <json>", that bench/wrk.ts reads; "last" is the last
-- n sent.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  prefix = args[1]
  step = tonumber(args[3])
  n = tonumber(args[2]) - step
  many = args[4] == "many"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  n = n + step
  local body = string.format(
    '{"voucherCode":"%s%d","firstName":"Ann","lastName":"Lee","email":"wrk%d@bench.test","phone":"+1 302 555 0100",'
      .. '"acceptPrivacyPolicy":true,"submissionTime":"%d","website":"","company_website":""}',
    prefix, n, n, os.time() * 1000)
  local headers = nil
  if many then
    headers = {
      ["Content-Type"] = "application/json",
      ["X-Forwarded-For"] = string.format("10.%d.%d.1", math.floor(n / 256) % 256, n % 256),
    }
  end
  return wrk.format(nil, "/api/redeem-voucher", headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'wrk-result {"requests":%d,"durationUs":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,'
      .. '"p50Us":%d,"p99Us":%d,"last":%d}\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), threads[1]:get("n")))
end
