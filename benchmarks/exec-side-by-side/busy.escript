#!/usr/bin/env escript
%% Erlang: a process per task on every scheduler; prints the xor of every task's last xorshift64 state.
-mode(compile).

-define(MASK, 16#FFFFFFFFFFFFFFFF).

step(X, 0) -> X;
step(X0, N) ->
    X1 = X0 bxor ((X0 bsl 13) band ?MASK),
    X2 = X1 bxor (X1 bsr 7),
    X3 = X2 bxor ((X2 bsl 17) band ?MASK),
    step(X3, N - 1).

main([Tasks, Steps]) ->
    T = list_to_integer(Tasks),
    S = list_to_integer(Steps),
    Parent = self(),
    [spawn(fun() -> Parent ! {done, step((Seed * 2654435761 + 1) band ?MASK, S)} end) || Seed <- lists:seq(0, T - 1)],
    io:format("~B~n", [collect(T, 0)]).

collect(0, Sum) -> Sum;
collect(N, Sum) -> receive {done, X} -> collect(N - 1, Sum bxor X) end.
