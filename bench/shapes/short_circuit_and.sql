-- Filters that AND a cheap condition with string conditions, over ClickBench's hits table
-- (bench/clickbench/binary_ab.py --queries). Selective cheap condition, then LIKE / match:
SELECT count() FROM hits WHERE CounterID = 62 AND URL LIKE '%google%'
SELECT count() FROM hits WHERE RegionID = 229 AND Title LIKE '%Яндекс%' AND URL NOT LIKE '%yandex%'
SELECT count() FROM hits WHERE AdvEngineID <> 0 AND match(Referer, 'yandex\\.[a-z]+/')
SELECT SearchPhrase, count() FROM hits WHERE IsMobile = 1 AND MobilePhone = 5 AND position(URL, 'pogoda') > 0 GROUP BY SearchPhrase ORDER BY 2 DESC, 1 LIMIT 10
-- A selective string condition first, then another:
SELECT count() FROM hits WHERE Title LIKE '%Google%' AND URL NOT LIKE '%.google.%'
-- Most rows pass the cheap condition (no compaction expected):
SELECT count() FROM hits WHERE IsRefresh = 0 AND URL LIKE '%google%'
