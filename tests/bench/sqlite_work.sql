-- The sqlite3 workload of tools/bench_allocators.sh: an in-memory database
-- with 300,000 inserts, two indexes, a join and a grouping, as a batch job
-- would run it (sqlite3 :memory: ".read tests/bench/sqlite_work.sql").
create table a(id integer primary key, k text, v integer);
create table b(id integer primary key, aid integer, note text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000)
  insert into a select x, printf('key%08d', (x * 7919) % 300000), x % 1000 from c;
with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000)
  insert into b select x, (x * 31) % 300000 + 1, printf('note %d of %d', x, x % 77) from c;
create index ia on a(k);
create index ib on b(aid);
select count(*), sum(a.v) from a join b on b.aid = a.id where a.k like 'key0001%';
select v, count(*) from a group by v order by 2 desc, 1 limit 3;
