package entgqlrt

import (
	"fmt"
	"io"
	"strconv"

	"entgo.io/ent/dialect/sql"
)

// OrderDirection is the GraphQL enum OrderDirection: ASC or DESC.
type OrderDirection string

const (
	// OrderDirectionAsc orders from the smallest value up.
	OrderDirectionAsc OrderDirection = "ASC"
	// OrderDirectionDesc orders from the largest value down.
	OrderDirectionDesc OrderDirection = "DESC"
)

// Validate reports whether o is ASC or DESC.
func (o OrderDirection) Validate() error {
	switch o {
	case OrderDirectionAsc, OrderDirectionDesc:
		return nil
	}
	return fmt.Errorf("%s is not a valid OrderDirection", o)
}

// String implements fmt.Stringer.
func (o OrderDirection) String() string { return string(o) }

// Reverse is the opposite direction (DESC for anything but DESC).
func (o OrderDirection) Reverse() OrderDirection {
	if o == OrderDirectionDesc {
		return OrderDirectionAsc
	}
	return OrderDirectionDesc
}

// OrderTermOption is the SQL order option for o (DESC for anything but ASC).
func (o OrderDirection) OrderTermOption() sql.OrderTermOption {
	if o == OrderDirectionAsc {
		return sql.OrderAsc()
	}
	return sql.OrderDesc()
}

// MarshalGQL implements graphql.Marshaler.
func (o OrderDirection) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(string(o)))
}

// UnmarshalGQL implements graphql.Unmarshaler.
func (o *OrderDirection) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("order direction %T must be a string", v)
	}
	*o = OrderDirection(s)
	return o.Validate()
}
