package entgqlrt

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"database/sql/driver"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

func TestOrderDirection(t *testing.T) {
	for _, tc := range []struct {
		in      any
		want    OrderDirection
		wantErr bool
	}{
		{in: "ASC", want: OrderDirectionAsc},
		{in: "DESC", want: OrderDirectionDesc},
		{in: "asc", wantErr: true},
		{in: "", wantErr: true},
		{in: 1, wantErr: true},
	} {
		var o OrderDirection
		err := o.UnmarshalGQL(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && o != tc.want) {
			t.Errorf("UnmarshalGQL(%v) = %q, %v", tc.in, o, err)
		}
	}
	var b bytes.Buffer
	OrderDirectionDesc.MarshalGQL(&b)
	if b.String() != `"DESC"` {
		t.Errorf("MarshalGQL = %s", b.String())
	}
	if OrderDirectionAsc.Reverse() != OrderDirectionDesc || OrderDirectionDesc.Reverse() != OrderDirectionAsc {
		t.Error("Reverse is not the opposite direction")
	}
	for dir, desc := range map[OrderDirection]bool{OrderDirectionAsc: false, OrderDirectionDesc: true, "bogus": true} {
		if got := sql.OrderByField("n", dir.OrderTermOption()); got.Desc != desc {
			t.Errorf("%q.OrderTermOption: desc = %v, want %v", dir, got.Desc, desc)
		}
	}
}

func TestCursorsPredicate(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		after, before *Cursor[int]
		dir           OrderDirection
		wantSQL       string
		wantArgs      []any
	}{
		{name: "none", dir: OrderDirectionAsc, wantSQL: `SELECT * FROM "runs"`},
		{name: "after id asc", after: &Cursor[int]{ID: 3}, dir: OrderDirectionAsc,
			wantSQL: `SELECT * FROM "runs" WHERE "runs"."id" > $1`, wantArgs: []any{3}},
		{name: "before id desc", before: &Cursor[int]{ID: 3}, dir: OrderDirectionDesc,
			wantSQL: `SELECT * FROM "runs" WHERE "runs"."id" < $1`, wantArgs: []any{3}},
		{name: "after value asc", after: &Cursor[int]{ID: 3, Value: at}, dir: OrderDirectionAsc,
			wantSQL: `SELECT * FROM "runs" WHERE ("runs"."created_at", "runs"."id") > ($1, $2)`, wantArgs: []any{at, 3}},
		{name: "both desc", after: &Cursor[int]{ID: 3, Value: 2.5}, before: &Cursor[int]{ID: 9}, dir: OrderDirectionDesc,
			wantSQL:  `SELECT * FROM "runs" WHERE ("runs"."created_at", "runs"."id") < ($1, $2) AND "runs"."id" < $3`,
			wantArgs: []any{2.5, 3, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sql.Dialect(dialect.Postgres).Select("*").From(sql.Table("runs"))
			for _, p := range CursorsPredicate(tc.after, tc.before, "id", "created_at", tc.dir) {
				p(s)
			}
			q, args := s.Query()
			if q != tc.wantSQL {
				t.Errorf("SQL:\n got %s\nwant %s", q, tc.wantSQL)
			}
			if diff := cmp.Diff(tc.wantArgs, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLimitPerRow(t *testing.T) {
	s := sql.Dialect(dialect.SQLite).Select("id", "repository_runs").From(sql.Table("runs")).
		Where(sql.InValues("repository_runs", 1, 2))
	LimitPerRow("repository_runs", 5, sql.ExprFunc(func(b *sql.Builder) { b.Ident("created_at").WriteString(" DESC") }))(s)
	q, args := s.Query()
	for _, want := range []string{
		"WITH `src_query` AS (SELECT `id`, `repository_runs` FROM `runs` WHERE `repository_runs` IN (?, ?))",
		"(ROW_NUMBER() OVER (PARTITION BY `repository_runs` ORDER BY `created_at` DESC)) AS `row_number`",
		") SELECT `id`, `repository_runs` FROM `limited_query` AS `runs` WHERE `runs`.`row_number` <= ?",
	} {
		if !strings.Contains(q, want) {
			t.Errorf("query lacks %s\nquery: %s", want, q)
		}
	}
	if diff := cmp.Diff([]any{1, 2, 5}, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

func TestErrNodeNotFound(t *testing.T) {
	err := ErrNodeNotFound(42)
	if err.Extensions["code"] != "NOT_FOUND" || !strings.Contains(err.Message, "'42'") {
		t.Errorf("ErrNodeNotFound(42) = %q %v", err.Message, err.Extensions)
	}
}

type fakeTx struct {
	commits, rollbacks int
	commitErr          error
}

func (f *fakeTx) Commit() error   { f.commits++; return f.commitErr }
func (f *fakeTx) Rollback() error { f.rollbacks++; return nil }

type txKey struct{}

type opener struct {
	tx  *fakeTx
	err error
}

func (o opener) OpenTx(ctx context.Context) (context.Context, driver.Tx, error) {
	if o.err != nil {
		return nil, nil, o.err
	}
	return context.WithValue(ctx, txKey{}, o.tx), o.tx, nil
}

func TestTransactioner(t *testing.T) {
	ok := func(ctx context.Context) *graphql.Response {
		if ctx.Value(txKey{}) == nil {
			t.Error("next did not get the transaction's context")
		}
		return &graphql.Response{Data: []byte(`{"x":1}`)}
	}
	failed := func(context.Context) *graphql.Response {
		return &graphql.Response{Data: []byte(`{"x":1}`), Errors: gqlerror.List{{Message: "no"}}}
	}
	for _, tc := range []struct {
		name                  string
		o                     opener
		next                  graphql.ResponseHandler
		commits, rollbacks    int
		wantData, wantErrText string
	}{
		{name: "commit", o: opener{tx: &fakeTx{}}, next: ok, commits: 1, wantData: `{"x":1}`},
		{name: "rollback on errors", o: opener{tx: &fakeTx{}}, next: failed, rollbacks: 1, wantErrText: "no"},
		{name: "commit fails", o: opener{tx: &fakeTx{commitErr: errors.New("busy")}}, next: ok, commits: 1, wantErrText: "cannot commit transaction: busy"},
		{name: "open fails", o: opener{tx: &fakeTx{}, err: errors.New("down")}, next: ok, wantErrText: "cannot create transaction: down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rsp := Transactioner{TxOpener: tc.o}.InterceptResponse(context.Background(), tc.next)
			if tc.o.tx.commits != tc.commits || tc.o.tx.rollbacks != tc.rollbacks {
				t.Errorf("commits, rollbacks = %d, %d, want %d, %d", tc.o.tx.commits, tc.o.tx.rollbacks, tc.commits, tc.rollbacks)
			}
			if string(rsp.Data) != tc.wantData {
				t.Errorf("data = %s, want %s", rsp.Data, tc.wantData)
			}
			if got := rsp.Errors.Error(); !strings.Contains(got, tc.wantErrText) || (tc.wantErrText == "") != (len(rsp.Errors) == 0) {
				t.Errorf("errors = %q, want %q", got, tc.wantErrText)
			}
		})
	}
	t.Run("rollback on panic", func(t *testing.T) {
		tx := &fakeTx{}
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the resolver's panic", r)
			}
			if tx.commits != 0 || tx.rollbacks != 1 {
				t.Errorf("commits, rollbacks = %d, %d, want 0, 1", tx.commits, tx.rollbacks)
			}
		}()
		Transactioner{TxOpener: opener{tx: tx}}.InterceptResponse(context.Background(), func(context.Context) *graphql.Response { panic("boom") })
	})
}
