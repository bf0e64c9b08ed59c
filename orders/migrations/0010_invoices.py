# Invoices and credit notes (orders/invoices.py): the invoices collection, the orders' invoice_number and refunds.credit_note.

import django_mongodb_backend.fields
import orders.models
from django.db import migrations, models

# This migration's own copy of orders.indexes.REFUND_AT_INDEX (the recovery of missing
# credit notes reads refunds by their time).
REFUND_AT_INDEX = ([("refunds.at", 1)], {"name": "order_refund_at"})


def create_refund_at_index(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, {"orders": [REFUND_AT_INDEX]})


class Migration(migrations.Migration):

    dependencies = [
        ('orders', '0009_returns'),
    ]

    operations = [
        migrations.CreateModel(
            name='Invoice',
            fields=[
                ('id', django_mongodb_backend.fields.ObjectIdAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('invoice', 'invoice'), ('credit_note', 'credit note')], max_length=12)),
                ('number', models.CharField(max_length=24, unique=True)),
                ('year', models.PositiveIntegerField()),
                ('seq', models.PositiveIntegerField()),
                ('source', models.CharField(max_length=120, unique=True)),
                ('order_number', models.CharField(max_length=20)),
                ('refund_request', models.CharField(blank=True, default='', max_length=100)),
                ('credited_invoice', models.CharField(blank=True, default='', help_text='a credit note: the invoice it corrects', max_length=24)),
                ('issued_at', models.DateTimeField()),
                ('order_placed_at', models.DateTimeField()),
                ('seller_name', models.CharField(max_length=200)),
                ('seller_address', models.JSONField(default=list, help_text='lines of text')),
                ('seller_vat_number', models.CharField(blank=True, default='', max_length=30)),
                ('seller_details', models.JSONField(default=list, help_text='further legal lines (registration...)')),
                ('buyer_name', models.CharField(max_length=200)),
                ('buyer_email', models.EmailField(max_length=254)),
                ('buyer_address', models.JSONField(default=list, help_text='lines of text')),
                ('buyer_vat_number', models.CharField(blank=True, default='', max_length=20)),
                ('lines', django_mongodb_backend.fields.EmbeddedModelArrayField(default=list, embedded_model=orders.models.InvoiceLine)),
                ('subtotal', models.IntegerField(help_text="cents: the lines' prices")),
                ('discount', models.IntegerField(default=0, help_text='cents')),
                ('shipping', models.IntegerField(default=0, help_text='cents as charged (its tax inside when tax_included)')),
                ('shipping_tax', models.IntegerField(default=0, help_text='cents')),
                ('shipping_tax_rate', models.CharField(blank=True, default='0', max_length=12)),
                ('shipping_name', models.CharField(blank=True, default='', help_text='the method as applied', max_length=100)),
                ('tax', models.IntegerField(default=0, help_text='cents')),
                ('total', models.IntegerField(help_text='cents')),
                ('gift_card', models.IntegerField(default=0, help_text='cents of the total paid by gift cards')),
                ('tax_included', models.BooleanField(default=False)),
                ('tax_name', models.CharField(blank=True, default='Tax', max_length=40)),
                ('reverse_charge', models.BooleanField(default=False)),
                ('currency', models.CharField(default='USD', max_length=3)),
                ('reason', models.CharField(blank=True, default='', help_text="a credit note's", max_length=300)),
            ],
            options={
                'db_table': 'invoices',
                'ordering': ['-issued_at'],
            },
        ),
        migrations.CreateModel(
            name='InvoiceLine',
            fields=[
                ('id', django_mongodb_backend.fields.ObjectIdAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('sku', models.CharField(max_length=64, verbose_name='SKU')),
                ('title', models.CharField(max_length=300)),
                ('qty', models.PositiveIntegerField()),
                ('price', models.PositiveIntegerField(help_text='cents per unit')),
                ('discount', models.PositiveIntegerField(default=0, help_text='cents')),
                ('net', models.IntegerField(help_text='cents before tax')),
                ('tax_rate', models.CharField(blank=True, default='0', help_text='percent', max_length=12)),
                ('tax', models.IntegerField(default=0, help_text='cents')),
                ('amount', models.IntegerField(help_text='cents: net plus tax')),
            ],
            options={
                'abstract': False,
            },
        ),
        migrations.AddField(
            model_name='order',
            name='invoice_number',
            field=models.CharField(blank=True, default='', max_length=20),
        ),
        migrations.AddField(
            model_name='refundrecord',
            name='credit_note',
            field=models.CharField(blank=True, default='', max_length=20),
        ),
        migrations.AddIndex(
            model_name='order',
            index=models.Index(fields=['invoice_number', 'placed_at'], name='order_invoice_due'),
        ),
        migrations.AddIndex(
            model_name='invoice',
            index=models.Index(fields=['order_number', 'issued_at'], name='invoice_order'),
        ),
        migrations.AddConstraint(
            model_name='invoice',
            constraint=models.UniqueConstraint(fields=('kind', 'year', 'seq'), name='invoice_kind_year_seq'),
        ),
        migrations.RunPython(create_refund_at_index, migrations.RunPython.noop),
    ]
