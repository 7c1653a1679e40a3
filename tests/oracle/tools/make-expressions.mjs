// One-off generator of cases/expressions.json (kept for reference: the JSON is the source of truth;
// edit it directly to add cases). Seed derive scopes are baked by evaluating earlier derives with the oracle.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderExpr } from '../oracle.mjs';
const here = new URL('..', import.meta.url).pathname;

const scopes = {
  basic: {
    n: 5, neg: -7, f: 2.5, big: 9007199254740991, s: 'Hello', low: 'abc', up: 'ABC', sp: '  pad  ',
    l: [3, 1, 2], strs: ['b', 'A', 'c'], e: [], t: true, z: 0, nul: null, empty: '',
    d: { a: 1, b: [1, 2], c: 'x' }, nested: { inner: { v: 42 } },
    people: [
      { name: 'ann', age: 31, admin: true },
      { name: 'bob', age: 25, admin: false },
      { name: 'cy', age: 40 },
    ],
    shape: [2, 3, 4],
  },
  dev_f16: {
    dtypes: { T: 'f16' },
    device: {
      features: ['shader-f16', 'subgroups', 'timestamp-query'],
      limits: { maxComputeWorkgroupsPerDimension: 100000, maxStorageBufferBindingSize: 1073741824 },
      adapterInfo: { vendor: 'mesa', architecture: 'llvmpipe', subgroupMinSize: 8, subgroupMaxSize: 8, isFallbackAdapter: false },
    },
  },
  dev_plain: {
    dtypes: { T: 'f16' },
    device: { features: [], limits: {} },
  },
};

const C = [];
const add = (section, rows, scope) => {
  for (const r of rows) {
    const [name, expr, extra] = r;
    const c = { id: `${section}.${name}`, expr };
    if (scope) c.scope = scope;
    if (extra) Object.assign(c, extra);
    C.push(c);
  }
};
const big = (why) => ({ wgkDiffers: why || 'integer result beyond 2^53: JS rounds silently, wgk reports an error' });

add('arith', [
  ['int_add', '1 + 2'], ['int_sub_neg', '3 - 10'], ['int_mul', '6 * 7'], ['float_add', '1.5 + 2'],
  ['int_plus_float_whole', '1 + 2.0'], ['float_mul_whole', '2.5 * 4'], ['div_int_exact', '6 / 2'],
  ['div_int_frac', '7 / 2'], ['div_neg', '-7 / 2'], ['floordiv_pos', '7 // 2'], ['floordiv_neg', '-7 // 2'],
  ['floordiv_neg_divisor', '7 // -2'], ['floordiv_float', '7.0 // 2'], ['floordiv_float_neg', '-7.5 // 2'],
  ['mod_pos', '7 % 3'], ['mod_neg_dividend', '-7 % 3'], ['mod_neg_divisor', '7 % -3'], ['mod_float', '7.5 % 2'],
  ['mod_float_neg', '-7.5 % 2'], ['pow_int', '2 ** 10'], ['pow_zero', '5 ** 0'], ['pow_neg_exp', '2 ** -1'],
  ['pow_float_exp', '2 ** 0.5'], ['pow_float_whole', '4 ** 0.5'], ['pow_float_base', '2.0 ** 3'],
  ['pow_neg_literal_base', '-2 ** 2'], ['pow_neg_paren', '(-2) ** 3'], ['pow_left_assoc', '2 ** 3 ** 2'],
  ['pow_zero_neg', '0 ** -1'], ['pow_overflow', '10.0 ** 400'], ['pow_nan', '(-8) ** 0.5'],
  ['precedence', '2 + 3 * 4 - 1'], ['parens', '(2 + 3) * 4'], ['unary_minus_var', '-n', { scope: 'basic' }],
  ['unary_plus', '+3'], ['unary_minus_paren', '-(3 - 5)'], ['unary_double', '- -3'], ['neg_zero_int', '-0'],
  ['neg_zero_float', '-0.0'], ['neg_zero_product', '0.0 * -1'], ['mul_assoc_div', '10 / 4 * 2'],
  ['int_float_eq', '6 == 6.0'], ['int_float_ne', '6 != 6.5'], ['bool_arith_error', 'true + 1'],
  ['str_times_int_error', "'ab' * 3"], ['none_arith_error', 'none + 1'],
]);
add('divzero', [
  ['float_div', '1 / 0'], ['float_div_neg', '-1 / 0'],
  ['floordiv_int', '1 // 0', { wgkDiffers: 'integer // by zero has no integer result; JS gives Infinity, wgk reports an error' }],
  ['mod_int', '1 % 0', { wgkDiffers: 'integer % by zero has no integer result; JS gives NaN, wgk reports an error' }],
  ['zero_over_zero', '0 / 0'],
]);
add('floatprint', [
  ['whole', '64.0'], ['whole_from_div', '128 / 2'], ['point3', '0.1 + 0.2'], ['third', '1 / 3'],
  ['e20', '10.0 ** 20'], ['e21', '10.0 ** 21'], ['e22', '10.0 ** 22'], ['tiny', '1 / 10000000'],
  ['small', '1 / 1000'], ['denorm', '2.0 ** -1074'], ['negative', '-2.5 * 3'], ['e16', '10.0 ** 16'],
  ['float_var', 'f', { scope: 'basic' }], ['float_filter', '3 | float'], ['half', '0.5'],
  ['many_digits', '3.14159265358979'],
]);
add('bigint', [
  ['p53', '2 ** 53'], ['p53_minus1', '2 ** 53 - 1'], ['max_safe_var', 'big', { scope: 'basic' }],
  ['max_safe_plus1', 'big + 1', { scope: 'basic' }],
  ['max_safe_plus2', 'big + 2', { scope: 'basic', ...big() }],
  ['p63', '2 ** 63', big()], ['p70', '2 ** 70', big()], ['literal_2p53_plus1', '9007199254740993', big()],
  ['mul_overflow', '4294967296 * 4294967296', big()], ['u32_max', '4294967295'], ['u32_max_sq_ok', '65535 * 65535'],
]);
add('compare', [
  ['lt', '1 < 2'], ['gt_false', '1 > 2'], ['le_eq', '2 <= 2'], ['ge', '3 >= 2.5'], ['eq_str', "'a' == 'a'"],
  ['ne_str', "'a' != 'b'"], ['eq_bool_int', 'true == 1'], ['eq_list_error_free', '[1, 2] == [1, 2]'],
  ['chain_lt_error', '1 < 2 < 3'], ['chain_eq', '1 == 1 == true'], ['str_lt_error', "'a' < 'b'"],
  ['none_eq_none', 'none == none'], ['none_lt_error', 'none < 1'], ['float_int_lt', '2.5 < 3'],
  ['neg_compare', '-1 < 0'],
]);
add('membership', [
  ['in_list', '2 in [1, 2, 3]'], ['not_in_list', '4 not in [1, 2, 3]'], ['in_list_float', '1.0 in [1, 2]'],
  ['in_str', "'ell' in 'hello'"], ['not_in_str', "'z' not in 'hello'"], ['in_dict', "'a' in d", { scope: 'basic' }],
  ['in_dict_missing', "'q' in d", { scope: 'basic' }], ['in_empty', '1 in []'], ['str_in_list', "'b' in ['a', 'b']"],
  ['int_in_str_error', "1 in 'abc'"], ['not_in_precedence', 'not 1 in [1]'],
]);
add('concat', [
  ['tilde_str', "'a' ~ 'b'"], ['tilde_int', "1 ~ 2"], ['tilde_float_whole', "1.0 ~ ''"], ['tilde_float', "2.5 ~ 'x'"],
  ['tilde_bool', "true ~ ''"], ['tilde_list', "[1, 2] ~ ''"], ['tilde_none_error', "none ~ 'x'"],
  ['plus_str', "'a' + 'b'"], ['plus_str_int', "'a' + 1"], ['plus_int_str', "1 + 'a'"], ['plus_lists', '[1] + [2, 3]'],
  ['tilde_precedence', "1 + 2 ~ 3"],
]);
add('logic', [
  ['and_ints', '1 and 0'], ['and_truthy', '1 and 2'], ['or_list', '0 or []'], ['or_str', "'' or 'x'"],
  ['or_first', "'a' or 'b'"], ['and_empty_list', '[] and 1'], ['or_none', 'none or 0'], ['not_true', 'not true'],
  ['not_zero', 'not 0'], ['not_empty_str', "not ''"], ['not_empty_list', 'not []'], ['not_list', 'not [1]'],
  ['not_not', 'not not 3'], ['and_or_prec', 'true or false and false'], ['not_and', 'not true and false'],
  ['or_short_circuit', 'true or nosuch.x'], ['and_short_circuit', 'false and (1 / nosuch)'],
  ['and_returns_dict', "{'a': 1} and 'y'"], ['or_empty_dict', "{} or 'y'"],
]);
add('cond', [
  ['if_else_true', "'y' if 1 < 2 else 'n'"], ['if_else_false', "'y' if 1 > 2 else 'n'"],
  ['if_no_else_true', "'y' if true"], ['if_no_else_false', "'y' if false"], ['nested', "1 if false else 2 if true else 3"],
  ['cond_truthy_list', "'y' if [] else 'n'"], ['cond_in_arith', '(1 if true else 2) + 10'],
  ['if_no_else_false_default', "('y' if false) | default('d')"],
]);
add('undefined', [
  ['member_missing', 'd.zz', { scope: 'basic' }], ['member_missing_defined', 'd.zz is defined', { scope: 'basic' }],
  ['member_present_defined', 'd.a is defined', { scope: 'basic' }], ['bare_unknown_defined', 'nosuch is defined'],
  ['bare_unknown_undefined', 'nosuch is undefined'], ['member_missing_default', "d.zz | default(7)", { scope: 'basic' }],
  ['member_of_missing', 'd.zz.yy', { scope: 'basic' }], ['missing_plus_error', 'd.zz + 1', { scope: 'basic' }],
  ['bare_unknown_arith_error', 'nosuch + 1'], ['bare_unknown_call_error', 'nosuch(1)'],
  ['bare_unknown_print', 'nosuch', { wgkDiffers: 'SYSTEM.md §3: an unknown bare name is an error except under `is defined`; the oracle prints ""' }],
  ['bare_unknown_member', 'nosuch.x', { wgkDiffers: 'SYSTEM.md §3: an unknown bare name is an error except under `is defined`; the oracle prints ""' }],
  ['none_prints_empty', 'none'], ['none_is_none', 'none is none'], ['undefined_eq_none', 'd.zz == none', { scope: 'basic' }],
  ['nested_member', 'nested.inner.v', { scope: 'basic' }], ['index_out_of_range', 'l[10]', { scope: 'basic' }],
  ['member_missing_in', "d.zz in [1]", { scope: 'basic' }],
]);
add('test', [
  ['defined', 'n is defined', { scope: 'basic' }], ['undefined', 'n is undefined', { scope: 'basic' }],
  ['none', 'nul is none', { scope: 'basic' }], ['not_none', 'n is not none', { scope: 'basic' }],
  ['boolean', 't is boolean', { scope: 'basic' }], ['boolean_int', '1 is boolean'], ['odd', '3 is odd'],
  ['even', '4 is even'], ['odd_neg', '-3 is odd'], ['odd_float_error', '3.0 is odd'], ['true', 'true is true'],
  ['true_int', '1 is true'], ['false', 'false is false'], ['false_zero', '0 is false'], ['string', "'a' is string"],
  ['string_int', '1 is string'], ['number_int', '1 is number'], ['number_float', '1.5 is number'],
  ['number_bool', 'true is number'], ['integer', '1 is integer'], ['integer_float', '1.0 is integer'],
  ['integer_from_helper', 'ceil(2.5) is integer'], ['integer_from_div', '(4 / 2) is integer'],
  ['iterable_list', '[1] is iterable'], ['iterable_str', "'a' is iterable"], ['iterable_dict', '{} is iterable'],
  ['iterable_tuple', '(1, 2) is iterable'], ['mapping', 'd is mapping', { scope: 'basic' }],
  ['mapping_list', '[] is mapping'], ['sequence_list', '[] is sequence'], ['sequence_str', "'' is sequence"],
  ['sequence_dict', '{} is sequence'], ['sequence_int', '1 is sequence'], ['lower', "'abc' is lower"],
  ['lower_mixed', "'aBc' is lower"], ['upper', "'ABC' is upper"], ['upper_int', '1 is upper'],
  ['equalto_call_error', '3 is equalto(3)'], ['eq_space_error', '3 is eq 3'], ['eq_bare_error', '3 is eq'],
  ['unknown_test_error', '3 is prime'], ['not_defined', 'nosuch is not defined'], ['test_precedence', '1 + 2 is odd'],
]);
add('filter', [
  ['int_float', '3.7 | int'], ['int_neg_float', '-3.7 | int'], ['int_str', "'42' | int"], ['int_str_float', "'4.9' | int"],
  ['int_str_bad', "'abc' | int"], ['int_bool', 'true | int'], ['int_default', "'x' | int(5)"], ['float_int', '3 | float'],
  ['float_str', "'2.5' | float"], ['abs_int', '-5 | abs'], ['abs_float', '-2.5 | abs'], ['round_error', '2.5 | round'],
  ['length_list', 'l | length', { scope: 'basic' }], ['length_str', "'hello' | length"], ['length_dict', 'd | length', { scope: 'basic' }],
  ['length_int_error', '3 | length'], ['join_default', '[1, 2, 3] | join'], ['join_sep', "['a', 'b'] | join(', ')"],
  ['join_floats', '[1.0, 2.5] | join(\'/\')'], ['join_str', "'abc' | join('-')"], ['tojson_list', "[1, 'a', true, none] | tojson"],
  ['tojson_float', '64.0 | tojson'], ['tojson_dict', 'd | tojson', { scope: 'basic' }], ['tojson_str', '\'q"x\' | tojson'],
  ['tojson_indent', '[1, [2]] | tojson(indent=2)'], ['default_defined', "n | default(1)", { scope: 'basic' }],
  ['default_none', "nul | default(1)", { scope: 'basic' }], ['default_falsy_bool', "0 | default(1, true)"],
  ['default_noargs_error', "d.zz | default", { scope: 'basic' }], ['indent_default', "'a\\nb\\n\\nc' | indent"],
  ['indent_width_first', "'a\\nb' | indent(2, true)"], ['replace', "'aXbX' | replace('X', '-')"],
  ['replace_count', "'aXbX' | replace('X', '-', 1)"], ['lower', "'AbC' | lower"], ['upper', "'AbC' | upper"],
  ['trim', 'sp | trim', { scope: 'basic' }], ['sort_ints', '[3, 1, 2] | sort'], ['sort_reverse', '[3, 1, 2] | sort(reverse=true)'],
  ['sort_strs_ci', 'strs | sort', { scope: 'basic' }], ['sort_attr', "people | sort(attribute='age') | map(attribute='name') | join(',')", { scope: 'basic' }],
  ['sort_mixed_error', "[1, 'a'] | sort"], ['unique', '[1, 2, 1, 3, 2] | unique'], ['map_attr', "people | map(attribute='age')", { scope: 'basic' }],
  ['map_attr_default', "people | map(attribute='admin', default=false)", { scope: 'basic' }], ['map_filter_error', "['1'] | map('int')"],
  ['select_error', '[1, 2] | select'], ['reject_error', "[1, 2] | reject('odd')"],
  ['selectattr_truthy', "people | selectattr('admin') | map(attribute='name') | join(',')", { scope: 'basic' }],
  ['rejectattr_truthy', "people | rejectattr('admin') | map(attribute='name') | join(',')", { scope: 'basic' }],
  ['selectattr_equalto', "people | selectattr('name', 'equalto', 'bob') | map(attribute='age') | first", { scope: 'basic' }],
  ['items', "{'a': 1, 'b': 2} | items"], ['items_loop_join', "d | items | length", { scope: 'basic' }],
  ['first', 'l | first', { scope: 'basic' }], ['last', 'l | last', { scope: 'basic' }], ['first_empty_error', '[] | first'],
  ['first_str_error', "'abc' | first"], ['list_list', '[1, 2] | list'], ['list_str_error', "'ab' | list"],
  ['string_int', '5 | string'], ['string_float', '5.0 | string'], ['string_list', "[1, 'a'] | string"],
  ['string_bool', 'true | string'], ['reverse', '[1, 2, 3] | reverse'], ['chain', "[3, 1, 2] | sort | first"],
  ['unknown_filter_error', '1 | frobnicate'], ['filter_vs_unary', '-3 | abs'], ['filter_vs_arith', '1 + -3 | abs'],
]);
add('slice', [
  ['basic', '[0, 1, 2, 3, 4][1:3]'], ['open_end', '[0, 1, 2, 3, 4][2:]'], ['open_start', '[0, 1, 2, 3, 4][:2]'],
  ['neg_start', '[0, 1, 2, 3, 4][-2:]'], ['neg_stop', '[0, 1, 2, 3, 4][:-1]'], ['step', '[0, 1, 2, 3, 4][::2]'],
  ['neg_step', '[0, 1, 2, 3, 4][::-1]'], ['neg_step_bounds', '[0, 1, 2, 3, 4][3:0:-1]'], ['neg_step2', '[0, 1, 2, 3, 4][::-2]'],
  ['str', "'hello'[1:4]"], ['str_rev', "'hello'[::-1]"], ['out_of_range', '[1, 2][5:9]'], ['empty_result', '[1, 2, 3][2:1]'],
  ['float_index_error', '[1, 2, 3][0.5:]'], ['shape_tail', 'shape[1:]', { scope: 'basic' }], ['shape_init', 'shape[:-1]', { scope: 'basic' }],
]);
add('index', [
  ['list', '[10, 20, 30][1]'], ['list_neg', '[10, 20, 30][-1]'], ['list_var', 'l[0]', { scope: 'basic' }],
  ['str', "'hello'[1]"], ['str_neg', "'hello'[-1]"], ['dict_key', "d['a']", { scope: 'basic' }], ['dict_dot', 'd.c', { scope: 'basic' }],
  ['dict_list_elem', 'd.b[1]', { scope: 'basic' }], ['dot_int', 'l.0', { scope: 'basic' }], ['dict_missing_key', "d['nope']", { scope: 'basic' }],
  ['list_str_key', "l['x']", { scope: 'basic' }], ['dict_int_key_error', 'd[0]', { scope: 'basic' }], ['index_none_error', 'nul[0]', { scope: 'basic' }],
  ['list_length_attr', '[1, 2, 3].length'], ['str_length_attr', "'abcd'.length"],
]);
add('string', [
  ['escape_n', "'a\\nb'"], ['escape_t', "'a\\tb'"], ['escape_quote', "'it\\'s'"], ['escape_dq', '"say \\"hi\\""'],
  ['escape_backslash', "'a\\\\b'"], ['escape_bad_error', "'a\\qb'"], ['adjacent', "'a' 'b'"], ['adjacent_mixed', "'a' \"b\" 'c'"],
  ['double_quoted', '"x"'], ['empty', "''"], ['unicode', "'héllo'"], ['with_braces', "'{x}'"],
]);
add('literal', [
  ['list', '[1, 2, 3]'], ['list_mixed', "[1, 'a', 2.5, true, none]"], ['list_floats_whole', '[1.0, 2.0]'],
  ['list_nested', '[[1, 2], [3]]'], ['list_empty', '[]'], ['list_trailing_comma', '[1, 2,]'], ['tuple_print_error', '(1, 2)'],
  ['tuple_index', '(1, 2)[0]'], ['tuple_length', '(1, 2, 3) | length'], ['dict', "{'a': 1, 'b': [1, 2]}"], ['dict_empty', '{}'],
  ['dict_int_key_error', '{1: 2}'], ['dict_nested', "{'a': {'b': 'c'}}"], ['true_cap', 'True'], ['false_cap', 'False'],
  ['none_cap', 'None'], ['true_upper_is_undefined', 'TRUE is defined'], ['exponent_literal_error', '1e3'],
  ['bool_print', 'false'], ['list_of_undefined', '[nosuch]', { wgkDiffers: 'SYSTEM.md §3: an unknown bare name is an error except under `is defined`; the oracle prints [undefined]' }],
]);
add('method', [
  ['upper', "'abc'.upper()"], ['lower', "'ABC'.lower()"], ['strip', 'sp.strip()', { scope: 'basic' }], ['title', "'hello world'.title()"],
  ['capitalize', "'hello'.capitalize()"], ['split_ws', "' a  b c '.split()"], ['split_sep', "'a,b,,c'.split(',')"],
  ['split_max', "'a,b,c'.split(',', 1)"], ['startswith', "'hello'.startswith('he')"], ['endswith', "'hello'.endswith('lo')"],
  ['replace', "'aaa'.replace('a', 'b')"], ['rstrip', "'x  '.rstrip() ~ '|'"], ['items', "{'a': 1}.items()"],
  ['keys', 'd.keys()', { scope: 'basic' }], ['values', "{'a': 1, 'b': 2}.values()"], ['get', "d.get('a')", { scope: 'basic' }],
  ['get_default', "d.get('zz', 9)", { scope: 'basic' }], ['get_missing_none', "d.get('zz')", { scope: 'basic' }],
  ['unknown_method_error', "'abc'.frob()"], ['list_append_error', '[1].append(2)'],
]);
add('builtin', [
  ['range1', 'range(4)'], ['range2', 'range(2, 5)'], ['range3', 'range(10, 0, -3)'], ['range_empty', 'range(0)'],
  ['range_length', 'range(5) | length'], ['fold_width', 'DISPATCH_FOLD_WIDTH'],
]);
add('device', [
  ['has_f16', "device.features.has('shader-f16')", { scope: 'dev_f16' }], ['has_subgroups', "device.features.has('subgroups')", { scope: 'dev_f16' }],
  ['lacks', "device.features.has('chromium-experimental-subgroup-matrix')", { scope: 'dev_f16' }],
  ['plain_lacks_f16', "device.features.has('shader-f16')", { scope: 'dev_plain' }],
  ['limit_given', 'device.limits.maxStorageBufferBindingSize', { scope: 'dev_f16' }],
  ['limit_clamped', 'device.limits.maxComputeWorkgroupsPerDimension', { scope: 'dev_f16' }],
  ['limit_default', 'device.limits.maxStorageBuffersPerShaderStage', { scope: 'dev_plain' }],
  ['limit_default_wg', 'device.limits.maxComputeInvocationsPerWorkgroup', { scope: 'dev_plain' }],
  ['limit_unknown', 'device.limits.maxFrobs is defined', { scope: 'dev_plain' }],
  ['adapter_vendor', 'device.adapterInfo.vendor', { scope: 'dev_f16' }],
  ['adapter_subgroup', 'device.adapterInfo.subgroupMinSize * 2', { scope: 'dev_f16' }],
  ['f16ok_with', 'f16Ok(dtypes.T)', { scope: 'dev_f16' }], ['f16ok_without', 'f16Ok(dtypes.T)', { scope: 'dev_plain' }],
  ['f16ok_f32_without', "f16Ok('f32')", { scope: 'dev_plain' }], ['f16ok_logical_without', "f16Ok('float16')", { scope: 'dev_plain' }],
  ['f16ok_no_device', "f16Ok('f16')"], ['f16ok_no_device_f32', "f16Ok('f32')"],
  ['limit_arith', 'device.limits.maxComputeWorkgroupsPerDimension * device.limits.maxComputeWorkgroupsPerDimension', { scope: 'dev_plain' }],
]);

// Helpers: kept in their own section so a disagreement here is easy to attribute (to the helper, not the engine).
add('helper', [
  ['ceil_float', 'ceil(2.1)'], ['ceil_int', 'ceil(4)'], ['ceil_neg', 'ceil(-2.5)'], ['ceil_div_result', 'ceil(7 / 2)'],
  ['floor_float', 'floor(2.9)'], ['floor_neg', 'floor(-2.1)'], ['min_args', 'min(3, 1, 2)'], ['min_list', 'min([4, 2, 8])'],
  ['min_float', 'min(2.5, 3)'], ['max_args', 'max(3, 7, 2)'], ['max_list', 'max(l)', { scope: 'basic' }], ['max_whole_float', 'max(2.0, 1)'],
  ['max_empty_error', 'max([])'], ['pow_int', 'pow(2, 10)'], ['pow_float', 'pow(2, 0.5)'], ['pow_neg', 'pow(2, -2)'],
  ['pow_whole_is_int', 'pow(4, 0.5) is integer'],
  ['ceildiv', 'ceilDiv(10, 3)'], ['ceildiv_exact', 'ceilDiv(9, 3)'], ['ceildiv_float_arg', 'ceilDiv(7 / 2, 2)'], ['ceildiv_zero_num', 'ceilDiv(0, 256)'],
  ['ceildiv_big', 'ceilDiv(4294967295, 256)'], ['ceildiv_by_zero_error', 'ceilDiv(1, 0)'], ['ceildiv_result_is_int', 'ceilDiv(10, 4) is integer'],
  ['pow2ceil_0', 'pow2ceil(0)'], ['pow2ceil_1', 'pow2ceil(1)'], ['pow2ceil_5', 'pow2ceil(5)'], ['pow2ceil_64', 'pow2ceil(64)'],
  ['pow2ceil_65', 'pow2ceil(65)'], ['pow2ceil_neg', 'pow2ceil(-3)'], ['pow2ceil_float', 'pow2ceil(2.5)'],
  ['log2ceil_0', 'log2ceil(0)'], ['log2ceil_1', 'log2ceil(1)'], ['log2ceil_2', 'log2ceil(2)'], ['log2ceil_5', 'log2ceil(5)'],
  ['log2ceil_1024', 'log2ceil(1024)'], ['log2ceil_1025', 'log2ceil(1025)'],
  ['numel', 'numel([2, 3, 4])'], ['numel_empty', 'numel([])'], ['numel_zero_dim', 'numel([3, 0, 2])'], ['numel_var', 'numel(shape)', { scope: 'basic' }],
  ['numel_half', 'numel([2, 3]) / 2'], ['numel_error', "numel('ab')"],
  ['dim', 'dim([2, 3, 4], 1)'], ['dim_neg', 'dim([2, 3, 4], -1)'], ['dim_neg_full', 'dim([2, 3, 4], -3)'], ['dim_oob_error', 'dim([2, 3, 4], 3)'],
  ['dim_oob_neg_error', 'dim([2, 3, 4], -4)'], ['dim_empty_error', 'dim([], 0)'],
  ['rows', 'rows([2, 3, 4], 2)'], ['rows_first', 'rows([2, 3, 4], 0)'], ['rows_neg', 'rows([2, 3, 4], -1)'],
  ['outer', 'outer([2, 3, 4], 1)'], ['outer_0', 'outer([2, 3, 4], 0)'], ['outer_neg', 'outer([2, 3, 4], -1)'],
  ['inner', 'inner([2, 3, 4], 1)'], ['inner_last', 'inner([2, 3, 4], 2)'], ['inner_neg', 'inner([2, 3, 4], -3)'],
  ['prefix', 'prefix([5, 6, 7, 8], 2)'], ['prefix_zero', 'prefix([5, 6], 0)'], ['prefix_long', 'prefix([5, 6], 5)'],
  ['suffix', 'suffix([5, 6, 7, 8], 2)'], ['suffix_zero', 'suffix([5, 6], 0)'], ['suffix_long', 'suffix([5, 6], 5)'],
  ['prefix_suffix_join', 'prefix(shape, 1) + suffix(shape, 1)', { scope: 'basic' }],
  ['fill', 'fill(1, 3)'], ['fill_zero', 'fill(7, 0)'], ['fill_str', "fill('a', 2)"], ['fill_neg_error', 'fill(1, -1)'],
  ['moveaxis_fwd', 'moveAxis([2, 3, 4, 5], 1, 3)'], ['moveaxis_back', 'moveAxis([2, 3, 4, 5], 3, 0)'], ['moveaxis_neg', 'moveAxis([2, 3, 4, 5], -1, 1)'],
  ['moveaxis_same', 'moveAxis([2, 3], 0, 0)'], ['moveaxis_oob_error', 'moveAxis([2, 3], 0, 2)'],
  ['permute', 'permuteShape([2, 3, 4], [2, 0, 1])'], ['permute_neg', 'permuteShape([2, 3, 4], [-1, 0, 1])'],
  ['permute_len_error', 'permuteShape([2, 3, 4], [0, 1])'], ['permute_dup_error', 'permuteShape([2, 3], [0, 0])'],
  ['reversed_axes', 'reversedAxes(4)'], ['reversed_axes_0', 'reversedAxes(0)'], ['reversed_axes_1', 'reversedAxes(1)'],
  ['bcast', 'broadcastShape([2, 1, 4], [3, 1])'], ['bcast_scalar', 'broadcastShape([], [2, 3])'], ['bcast_same', 'broadcastShape([2, 3], [2, 3])'],
  ['bcast_zero', 'broadcastShape([0, 1], [1, 5])'], ['bcast_error', 'broadcastShape([2, 3], [4, 3])'],
  ['bcastable_yes', 'broadcastable([8, 1, 6, 1], [7, 1, 5])'], ['bcastable_no', 'broadcastable([2, 3], [3, 2])'],
  ['matmul_2d', 'matmulShape([2, 3], [3, 4])'], ['matmul_batch', 'matmulShape([5, 2, 3], [3, 4])'],
  ['matmul_batch_bcast', 'matmulShape([5, 1, 2, 3], [4, 3, 6])'], ['matmul_vec_left', 'matmulShape([3], [3, 4])'],
  ['matmul_vec_right', 'matmulShape([2, 3], [3])'], ['matmul_vec_vec', 'matmulShape([3], [3])'],
  ['matmul_vec_batch', 'matmulShape([3], [5, 3, 4])'], ['matmul_k_error', 'matmulShape([2, 3], [4, 5])'],
  ['matmul_batch_error', 'matmulShape([2, 2, 3], [3, 3, 4])'],
  ['same_yes', 'sameShape([2, 3], [2, 3])'], ['same_no', 'sameShape([2, 3], [3, 2])'], ['same_rank', 'sameShape([2], [2, 1])'],
  ['same_empty', 'sameShape([], [])'], ['same_missing', 'sameShape(shape, d.zz)', { scope: 'basic' }],
  ['hasaxis_yes', 'hasAxis([2, 3, 4], 2)'], ['hasaxis_neg', 'hasAxis([2, 3, 4], -3)'], ['hasaxis_oob', 'hasAxis([2, 3, 4], 3)'],
  ['hasaxis_rank', 'hasAxis(3, -4)'], ['axisvalue', 'axisValue([2, 3, 4], -1)'], ['axisvalue_rank', 'axisValue(4, 1)'],
  ['axisvalue_error', 'axisValue(2, 2)'],
  ['unique_yes', 'isUniqueIntList([0, 2, 1])'], ['unique_dup', 'isUniqueIntList([0, 1, 0])'], ['unique_empty', 'isUniqueIntList([])'],
  ['unique_float', 'isUniqueIntList([0, 1.5])'], ['unique_str', "isUniqueIntList(['a'])"], ['unique_not_list', 'isUniqueIntList(3)'],
  ['has_dict', "has(d, 'a')", { scope: 'basic' }], ['has_dict_missing', "has(d, 'zz')", { scope: 'basic' }],
  ['has_list', 'has([1, 2], 2)'], ['has_str', "has('hello', 'ell')"], ['has_dict_literal', "has({'k': none}, 'k')"],
  ['bytes_f32', "dtypeBytes('f32')"], ['bytes_f16', "dtypeBytes('f16')"], ['bytes_float16', "dtypeBytes('float16')"],
  ['bytes_int64', "dtypeBytes('int64')"], ['bytes_uint8', "dtypeBytes('uint8')"], ['bytes_unknown_error', "dtypeBytes('complex64')"],
  ['onnx_float32', "onnxDtypeCode('float32')"], ['onnx_float16', "onnxDtypeCode('float16')"], ['onnx_int64', "onnxDtypeCode('int64')"],
  ['onnx_int32', "onnxDtypeCode('int32')"], ['onnx_bool', "onnxDtypeCode('bool')"], ['onnx_uint8', "onnxDtypeCode('uint8')"],
  ['onnx_f16_wgsl', "onnxDtypeCode('f16')"], ['onnx_unknown_error', "onnxDtypeCode('nope')"],
  ['pick_first', "pick([[false, 'a'], [true, 'b'], [true, 'c']], 'z')"], ['pick_default', "pick([[false, 1]], 2)"],
  ['pick_empty', "pick([], 'z')"], ['pick_truthy', "pick([[0, 'a'], [[], 'b'], ['x', 'c']], 'z')"],
  ['pick_expr', "pick([[n > 10, 'big'], [n > 3, 'mid']], 'small')", { scope: 'basic' }],
  ['helper_in_filter', 'numel(shape) | string', { scope: 'basic' }], ['helper_kwarg', 'dim([2, 3], i=1)'],
  ['helper_result_list_float', 'fill(2.5, 2)'], ['helper_shape_arith', 'numel(shape) * 2 // 3', { scope: 'basic' }],
]);

// The seed manifest's derives on realistic scopes. Each derive's scope holds the earlier derives
// (as `derive.<n>` and by bare name), baked here by evaluating them with the oracle.
const manifest = JSON.parse(readFileSync('/work/shared/reference/seeds/rotary-embedding.manifest.json', 'utf8'));
const dev = (f16) => ({
  features: f16 ? ['shader-f16', 'subgroups', 'timestamp-query'] : ['timestamp-query'],
  limits: { maxComputeWorkgroupsPerDimension: 65535, maxStorageBufferBindingSize: 2147483648, maxBufferSize: 2147483648 },
  adapterInfo: { vendor: 'mesa', architecture: 'llvmpipe', subgroupMinSize: 8, subgroupMaxSize: 8, isFallbackAdapter: false },
});
function call({ X, cos, pos, T = 'f32', attrs = {}, f16 = true, wg = 256 }) {
  const shapes = { X, cos_cache: cos, sin_cache: cos, Y: X };
  const present = { X: true, cos_cache: true, sin_cache: true, Y: true, x: true, cos: true, sin: true, y: true, position_ids: !!pos, positionIds: !!pos };
  if (pos) shapes.position_ids = pos;
  const ranks = Object.fromEntries(Object.entries(shapes).map(([k, v]) => [k, v.length]));
  return {
    attrs: { interleaved: 0, rotary_embedding_dim: 0, ...attrs }, args: {}, shapes, ranks, present,
    dtypes: { T, M: 'u32' }, logicalDtypes: { T: T === 'f16' ? 'float16' : 'float32', M: 'int64' },
    tunables: { WORKGROUP_SIZE: wg }, derive: {}, device: dev(f16),
  };
}
const seedScopes = {
  r4_cache3: call({ X: [2, 8, 16, 64], cos: [2, 16, 32] }),
  r4_cache3_partial: call({ X: [1, 4, 10, 64], cos: [1, 10, 16], attrs: { rotary_embedding_dim: 32, interleaved: 1 } }),
  r3_cache3: call({ X: [2, 16, 512], cos: [2, 16, 32], attrs: { num_heads: 8 } }),
  r3_pos: call({ X: [1, 7, 256], cos: [128, 16], pos: [1, 7], attrs: { num_heads: 8 }, T: 'f16' }),
  r3_pos_nof16: call({ X: [1, 7, 256], cos: [128, 16], pos: [1, 7], attrs: { num_heads: 8 }, T: 'f16', f16: false }),
  r4_pos: call({ X: [2, 4, 9, 32], cos: [64, 16], pos: [2, 9] }),
  r3_no_heads: call({ X: [2, 16, 512], cos: [2, 16, 32] }),
  r3_bad_heads: call({ X: [2, 16, 500], cos: [2, 16, 32], attrs: { num_heads: 3 } }),
  r4_huge: call({ X: [65536, 64, 64, 2048], cos: [65536, 64, 1024], wg: 64 }),
  r4_odd_head: call({ X: [1, 2, 3, 5], cos: [1, 3, 2] }),
};
for (const [sname, base] of Object.entries(seedScopes)) {
  const scope = structuredClone(base);
  for (const [dname, expr] of Object.entries(manifest.derive)) {
    C.push({ id: `seed.${sname}.${dname}`, expr, scope: `seed_${sname}_${dname}` });
    scopes[`seed_${sname}_${dname}`] = structuredClone(scope);
    const r = renderExpr(`(${expr}) | tojson`, scope);
    if (!r.ok) throw new Error(`seed ${sname}.${dname}: ${r.error}`);
    const v = JSON.parse(r.out);
    scope.derive[dname] = v;
    scope[dname] = v;
  }
  // the variant constants and pass expressions on the final scope
  const fin = `seed_${sname}_final`;
  scopes[fin] = scope;
  const v0 = manifest.variants[0];
  for (const [k, e] of Object.entries(v0.constants)) C.push({ id: `seed.${sname}.const_${k}`, expr: e, scope: fin });
  C.push({ id: `seed.${sname}.dispatch_threads`, expr: v0.passes[0].dispatch.threads, scope: fin });
  C.push({ id: `seed.${sname}.dispatch_workgroups`, expr: `ceilDiv(${v0.passes[0].dispatch.threads}, ${v0.passes[0].dispatch.workgroupSize})`, scope: fin });
  C.push({ id: `seed.${sname}.output_shape`, expr: manifest.outputs[0].shape, scope: fin });
  C.push({ id: `seed.${sname}.output_rank`, expr: manifest.outputs[0].rank, scope: fin });
}
// uniform field expressions of every binding set, on the matching scope
const setScope = { rank3: 'r3_cache3', rank3Pos: 'r3_pos', rank4Pos: 'r4_pos', rank4: 'r4_cache3' };
for (const [set, sname] of Object.entries(setScope)) {
  const params = manifest.bindingSets[set].find((b) => b.struct);
  for (const f of params.struct.fields) C.push({ id: `seed.${set}.uniform_${f.name}`, expr: f.value, scope: `seed_${sname}_final` });
}

const ids = new Set();
for (const c of C) { if (ids.has(c.id)) throw new Error('dup ' + c.id); ids.add(c.id); }
const doc = {
  comment: 'Oracle cases: each renders {{ expr }} with @huggingface/jinja 0.5.10 on its scope (a name in `scopes` or an inline object). See ../README.md.',
  scopes,
  cases: C,
};
writeFileSync(here + 'cases/expressions.json', JSON.stringify(doc, null, 1) + '\n');
console.log(C.length, 'cases');
